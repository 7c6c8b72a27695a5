/**
 * Two web consoles share one SQLite file. An ask answered on console 2
 * reached console 1's tabs as `question/resolved` with `outcome: 'aborted'`
 * (the page said "was withdrawn by the agent"); one dismissed there arrived
 * as `aborted` too, and so did a plan approved by two people there. The
 * presentation that lost only heard `settled-elsewhere`, and the relay read
 * every ending but a timeout as `aborted`. Now the `settled-elsewhere` error
 * names the committed ending (`details.ending`), and every tab hears how the
 * ask really ended (DESIGN §7: "whatever ended the ask").
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionRequest } from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import type { WebConsole } from '../../src/providers/web/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { openSocket } from '../providers/web/ws-client.js'
import type { TestSocket } from '../providers/web/ws-client.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'
import { approval as approve, consoleUsers, planToApprove as plan } from '../support/plan-review.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const tokens = { ana: 'ana-token-0123456789', bo: 'bo-token-0123456789' }
const users = consoleUsers(tokens)

/** Two consoles, each on its own seam and connection to one SQLite file, and a seam that asks. */
async function fleet() {
  const temp = tempDirectory()
  cleanups.push(() => temp.remove())
  const path = temp.file()
  const seamOn = () => {
    const store = createSqliteStore({ path })
    const seam = createUserQuestions({ store })
    cleanups.push(() => store.close())
    cleanups.push(() => seam.close())
    return seam
  }
  const consoles: WebConsole[] = []
  for (const _ of [1, 2]) {
    const web = await startWebConsole({ seam: seamOn(), users })
    cleanups.push(() => web.close())
    consoles.push(web)
  }
  const tab = async (web: WebConsole, as: keyof typeof tokens) => {
    const socket = await openSocket(`${web.wsUrl}?token=${tokens[as]}`)
    cleanups.push(() => socket.close())
    return socket
  }
  return { asker: seamOn(), consoles: consoles as [WebConsole, WebConsole], tab }
}

/** What a tab hears of how the ask `rpcId` ended. */
const resolvedOn = async (tab: TestSocket, rpcId: string) =>
  (await tab.next('question/resolved', (frame) => frame.rpcId === rpcId)).outcome

describe('regression: other consoles are told aborted for an ask settled elsewhere', () => {
  it.each([
    { done: 'answered', result: { ok: true, value: approve }, outcome: 'answered' },
    {
      done: 'dismissed',
      result: { ok: false, error: { code: 'cancelled' } },
      outcome: 'cancelled',
    },
  ] as const)('an ask $done on console 2 resolves as $outcome on console 1', async (ending) => {
    const { asker, consoles, tab } = await fleet()
    const [one, two] = [await tab(consoles[0], 'ana'), await tab(consoles[1], 'bo')]
    const asked = asker.ask({ questions: plan, key: ending.done }).catch(() => undefined)
    const { rpcId } = await one.next('question/requested')
    await two.next('question/requested', (frame) => frame.rpcId === rpcId)
    two.send({ type: 'question/respond', rpcId, result: ending.result })
    expect(await resolvedOn(two, rpcId)).toBe(ending.outcome)
    expect(await resolvedOn(one, rpcId)).toBe(ending.outcome)
    await asked
  })

  it('a plan approved by two people on console 2 resolves as answered on console 1', async () => {
    const { asker, consoles, tab } = await fleet()
    const watcher = await tab(consoles[0], 'ana')
    const [ana, bo] = [await tab(consoles[1], 'ana'), await tab(consoles[1], 'bo')]
    const request: AskUserQuestionRequest = { questions: plan, key: 'two-approvals', approvals: 2 }
    const asked = asker.ask(request)
    const { rpcId } = await watcher.next('question/requested')
    await ana.next('question/requested', (frame) => frame.rpcId === rpcId)
    ana.send({ type: 'question/respond', rpcId, result: { ok: true, value: approve } })
    expect(await ana.next('receipt')).toMatchObject({ accepted: true, counted: { given: ['ana'] } })
    await bo.next('question/requested', (frame) => frame.approvals?.given.length === 1)
    bo.send({ type: 'question/respond', rpcId, result: { ok: true, value: approve } })
    expect(await asked).toEqual(approve)
    expect(await resolvedOn(bo, rpcId)).toBe('answered')
    expect(await resolvedOn(watcher, rpcId)).toBe('answered')
  })
})
