/**
 * A framework aborted a tool call and ran it again at once with the same
 * key (its tool-call id). The re-run, never aborted, joined the ask that was
 * ending with the first call's abort and was rejected `ASK_ABORTED`
 * (`caller-aborted`), the first call's reason as its cause. The caller's own
 * abort is not replayed to a key (DESIGN §10): the re-run waits for that
 * ending, then asks anew (the question is shown again, with a new askId).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { UserQuestions } from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'

const questions = [{ id: 'go', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }]
const seams: UserQuestions[] = []
afterEach(async () => {
  await Promise.all(seams.splice(0).map((seam) => seam.close()))
})

function seamWithProvider() {
  const seam = createUserQuestions()
  seams.push(seam)
  const provider = createControllableProvider()
  seam.registerProvider(provider)
  return { seam, provider }
}

describe('regression: a call re-run at once after its abort gets the old abort', () => {
  it('the re-run under the same key is asked anew and gets its own answer', async () => {
    const { seam, provider } = seamWithProvider()
    const caller = new AbortController()
    const first = seam.ask({ key: 'call-1', questions, signal: caller.signal })
    const shown = await provider.call(0)
    caller.abort(new Error('the user pressed stop'))
    const rerun = seam.ask({ key: 'call-1', questions })

    await expect(first).rejects.toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: 'caller-aborted' },
    })
    const again = await provider.call(1)
    expect(again.request.askId).not.toBe(shown.request.askId)
    again.resolve({ answers: [{ id: 'go', selected: ['Yes'] }] })
    await expect(rerun).resolves.toEqual({ answers: [{ id: 'go', selected: ['Yes'] }] })
  })

  it('a re-run held back while the old ask ends still hears its own abort, and the seam’s close', async () => {
    const { seam, provider } = seamWithProvider()
    const caller = new AbortController()
    const first = seam.ask({ key: 'call-2', questions, signal: caller.signal })
    first.catch(() => undefined)
    await provider.call(0)
    caller.abort(new Error('stop'))
    const rerunCaller = new AbortController()
    const aborted = seam.ask({ key: 'call-2', questions, signal: rerunCaller.signal })
    rerunCaller.abort(new Error('stopped again'))
    await expect(aborted).rejects.toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: 'caller-aborted' },
    })

    const third = new AbortController()
    const fourth = seam.ask({ key: 'call-3', questions, signal: third.signal })
    fourth.catch(() => undefined)
    await provider.call(1)
    third.abort(new Error('stop'))
    const closed = seam.ask({ key: 'call-3', questions })
    await seam.close()
    await expect(closed).rejects.toMatchObject({ code: 'SEAM_CLOSED' })
  })
})
