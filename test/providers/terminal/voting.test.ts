/**
 * Who answers at a real terminal (DESIGN §12), in a pty against the real
 * seam: the OS user is the responder, an ask meant for someone else is never
 * answerable here, and the OS user's approval of a plan that needs two is
 * counted while the ask stays pending.
 */
import { userInfo } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { Keys } from '../../support/pty-screen.js'
import type { PtySession } from '../../support/pty-screen.js'
import { resultOf, resultsOf, startFixture } from './fixture.js'
import type { FixtureSpec } from './fixture.js'

const sessions: PtySession[] = []
function start(spec: FixtureSpec): PtySession {
  const session = startFixture(spec, { columns: 100, rows: 30 })
  sessions.push(session)
  return session
}
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill()
})

const me = userInfo().username

describe('who answers at the terminal', () => {
  it('the OS user answers an ask whose answerers name them', async () => {
    const session = start({
      asks: [[{ id: 'go', question: 'Go ahead?', options: [{ label: 'Yes' }, { label: 'No' }] }]],
      answerers: [me],
    })
    await session.waitForScreen('Go ahead?')
    session.type('1')
    expect(await resultOf(session, 0)).toMatchObject({
      ok: true,
      answer: { answers: [{ id: 'go', selected: ['Yes'] }] },
    })
  })

  it('an ask for someone else is a line, never a prompt: keys answer nothing, and it stays pending', async () => {
    const session = start({
      asks: [[{ id: 'go', question: 'Go ahead?', options: [{ label: 'Yes' }, { label: 'No' }] }]],
      answerers: ['someone-else'],
    })
    await session.waitForScreen('“Go ahead?” waits for someone-else to answer')
    session.type(`1${Keys.enter}`)
    expect(session.screen()).not.toContain('❯')
    expect(resultsOf(session)).toEqual([])
    session.kill('SIGUSR2')
    expect(await resultOf(session, 0)).toMatchObject({
      ok: false,
      code: 'ASK_ABORTED',
      reason: 'caller-aborted',
    })
  })

  it("the OS user's approval of a plan that needs two is counted, and the ask stays pending with 1 of 2", async () => {
    const session = start({ asks: ['plan'], approvals: 2 })
    await session.waitForScreen('0 of 2 approvals')
    session.type(Keys.enter)
    await session.waitForScreen('your approval is counted (1 of 2)')
    await session.waitForScreen(`your approval is counted (1 of 2 approvals: ${me})`)
    expect(resultsOf(session)).toEqual([])
    session.kill('SIGUSR2')
    expect(await resultOf(session, 0)).toMatchObject({
      ok: false,
      code: 'ASK_ABORTED',
      reason: 'caller-aborted',
    })
  })
})
