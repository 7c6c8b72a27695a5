import { afterEach, beforeEach, vi } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskStore,
  AskUserQuestionItem,
  PresentationVerdict,
  SeamTelemetry,
  UserQuestions,
  UserQuestionsOptions,
} from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { deferred } from '../support/deferred.js'
import { holdingStore } from '../support/holding-store.js'
import { settle } from '../support/settle.js'

/** What the seam.*.test.ts files of DESIGN §10 share: seams on one store, closed after each test. */

export const questions: AskUserQuestionItem[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
]
export const answer = { answers: [{ id: 'db', selected: ['SQLite'] }] }

export function outcomeOf<T>(promise: Promise<T>) {
  const seen: { value?: T; error?: unknown; settled: boolean } = { settled: false }
  promise.then(
    (value) => Object.assign(seen, { value, settled: true }),
    (error: unknown) => Object.assign(seen, { error, settled: true }),
  )
  return seen
}

/** Telemetry that records how each presentation of its seam closed, by ask. */
export function recordingTelemetry() {
  const verdicts: [string, PresentationVerdict][] = []
  const telemetry: SeamTelemetry = {
    askStarted: () => undefined,
    presentationStarted: ({ askId }) => ({ ended: (verdict) => verdicts.push([askId, verdict]) }),
  }
  return { telemetry, verdicts }
}

let seams: UserQuestions[] = []
export const seamOn = (store: AskStore, options: UserQuestionsOptions = {}) => {
  const seam = createUserQuestions({ store, ...options })
  seams.push(seam)
  return seam
}

/** The memory store, said to outlive the process: the seams sharing it take it as durable. */
export const durableMemoryStore = (): AskStore =>
  Object.create(createMemoryStore(), { processLocal: { value: false } }) as AskStore

/**
 * A memory store whose admissions wait for the test (see `holdingStore`), and
 * whose reads see the store as it is when made but answer only once
 * `readsLand` resolves: a read made before an admission can land after it.
 */
export function lateReadsStore() {
  const inner = createMemoryStore()
  const holding = holdingStore(inner, { admissions: true })
  const readsLand = deferred()
  const store = Object.create(holding.store) as AskStore
  store.get = (askId) => {
    const read = inner.get(askId)
    return readsLand.promise.then(() => read)
  }
  return { store, holding, readsLand }
}

/** A seam on `store` with a controllable provider registered. */
export function presentingOn(store: AskStore) {
  const seam = seamOn(store)
  const provider = createControllableProvider()
  seam.registerProvider(provider)
  return { seam, provider }
}

/** A memory store shared by a worker seam, which asks, and a console seam, which presents. */
export function fleet(store: AskStore = createMemoryStore()) {
  return { store, worker: seamOn(store), console_: seamOn(store) }
}

/** A {@link fleet} whose console seam has a controllable provider, once the fleet has seen it. */
export async function fleetWithConsole(store?: AskStore) {
  const seams = fleet(store)
  const there = createControllableProvider()
  seams.console_.registerProvider(there)
  await settle()
  return { ...seams, there }
}

/** Fake timers from 1,000,000 ms for each test of the calling file; every seam {@link seamOn} made is closed after it. */
export function useStoreSeams(): void {
  beforeEach(() => {
    vi.useFakeTimers()
    vi.setSystemTime(1_000_000)
    seams = []
  })
  afterEach(async () => {
    for (const seam of seams) await seam.close()
    vi.useRealTimers()
  })
}
