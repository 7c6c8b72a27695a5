import { getEventListeners } from 'node:events'
import { afterEach, beforeEach, vi } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionItem, AskUserQuestionRequest } from '../../src/protocol/index.js'
import {
  choice,
  createControllableProvider,
  skipAll,
  track,
} from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'
import { storeThatGoesDown } from './faulty-store.js'

/**
 * What the seam.*.test.ts files of DESIGN §4 and §5 share: a clock, a batch,
 * signal probes, an answer retried while the store is down.
 */

export const START = Date.UTC(2026, 0, 1)

export const batch = (): AskUserQuestionItem[] => [
  choice('db', ['Postgres', 'SQLite']),
  {
    id: 'features',
    question: 'Which features?',
    multiSelect: true,
    options: [{ label: 'Auth' }, { label: 'Billing' }, { label: 'Search' }],
  },
]

/** How many abort listeners are registered on `signal` right now. */
export const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length

/** Wraps a signal's add/removeEventListener so a test sees that the seam listened, and let go. */
export function countingSignal(signal: AbortSignal): { added: number; removed: number } {
  const counts = { added: 0, removed: 0 }
  const add = signal.addEventListener.bind(signal)
  const remove = signal.removeEventListener.bind(signal)
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    if (args[0] === 'abort') counts.added += 1
    add(...args)
  }) as typeof signal.addEventListener
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    if (args[0] === 'abort') counts.removed += 1
    remove(...args)
  }) as typeof signal.removeEventListener
  return counts
}

/** Fake timers, the clock at {@link START}, for every test of the file that calls it. */
export function useFakeClock(): void {
  beforeEach(() => {
    vi.useFakeTimers()
    vi.setSystemTime(START)
  })

  afterEach(() => {
    vi.useRealTimers()
  })
}

/** Turns a tracked settlement back into a promise for `rejectionOf`. */
export function result<T>(tracked: ReturnType<typeof track<T>>): Promise<T> {
  const settlement = tracked.settlement
  if (settlement.status === 'fulfilled') return Promise.resolve(settlement.value)
  if (settlement.status === 'rejected') return Promise.reject(settlement.reason)
  return Promise.reject(new Error('the ask has not settled'))
}

/**
 * A seam on a store that is down (see {@link storeThatGoesDown}), whose
 * provider answered `ask` and then left with nobody to take its place: the
 * human's answer is still being retried, not dropped.
 */
export async function answerRetriedAfterItsProviderLeft(
  ask: Omit<AskUserQuestionRequest, 'questions'>,
) {
  const inner = createMemoryStore()
  const locked = storeThatGoesDown(inner)
  const seam = createUserQuestions({ store: locked.store })
  const provider = createControllableProvider()
  const dispose = seam.registerProvider(provider)
  const asking = track(seam.ask({ ...ask, questions: batch() }))
  const call = await provider.call(0)
  call.resolve(skipAll(batch()))
  await settle()
  dispose()
  return { inner, locked, asking, askId: call.request.askId }
}
