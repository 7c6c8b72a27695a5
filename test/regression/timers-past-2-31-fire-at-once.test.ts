/**
 * Issue 21, fault 6: Node fires a timer longer than 2^31−1 ms after 1 ms
 * (with a TimeoutOverflowWarning). The limit was checked where requests are
 * validated, not where timers are set, so a stored deadline further away
 * (another process's ask, weeks ahead) ended an ask at once or made the
 * sweep spin. Every machine's delay is now clamped and re-armed for what is
 * left.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore, UserQuestions } from '../../src/protocol/index.js'
import { MAX_DELAY_MS } from '../../src/machines/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'
import { captureWarnings, named } from '../support/warnings.js'

const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000
const questions = [
  { id: 'go', question: 'Go ahead?', options: [{ label: 'Yes' }, { label: 'No' }] },
]

let overflows: Error[] = []
const seams: UserQuestions[] = []
beforeEach(() => {
  overflows = captureWarnings(named('TimeoutOverflowWarning'))
})
afterEach(async () => {
  await Promise.all(seams.splice(0).map((seam) => seam.close()))
})

/** Waits real time: long enough for a timer that overflowed (1 ms) to have fired many times. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('regression: timers past 2^31−1 ms fire at once', () => {
  it('another process’s ask due in thirty days is presented and stays pending', async () => {
    expect(THIRTY_DAYS_MS).toBeGreaterThan(MAX_DELAY_MS)
    const store: AskStore = createMemoryStore()
    const now = Date.now()
    await store.admit({
      askId: 'far-away',
      key: 'far-away',
      questions,
      ownerSeamId: 'another-process',
      startedAt: now,
      deadline: now + THIRTY_DAYS_MS,
    })
    const seam = createUserQuestions({ store })
    seams.push(seam)
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const call = await provider.call(0)
    expect(call.request.deadline).toBe(now + THIRTY_DAYS_MS)
    await pause(50)
    await settle()
    expect(call.request.signal.aborted).toBe(false)
    expect((await store.get('far-away'))?.state).toBe('pending')
    expect(seam.pending().map(({ askId }) => askId)).toEqual(['far-away'])
    expect(overflows).toEqual([])
  })

  it('an own ask with the longest timeout a request may give waits, with no overflowing timer', async () => {
    const seam = createUserQuestions({ store: createMemoryStore() })
    seams.push(seam)
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const asked = seam.ask({ questions, timeoutMs: MAX_DELAY_MS })
    const call = await provider.call(0)
    await pause(50)
    expect(call.request.signal.aborted).toBe(false)
    call.resolve({ answers: [{ id: 'go', selected: ['Yes'] }] })
    await expect(asked).resolves.toEqual({ answers: [{ id: 'go', selected: ['Yes'] }] })
    expect(overflows).toEqual([])
  })
})
