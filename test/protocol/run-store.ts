import { afterEach, beforeEach, vi } from 'vitest'
import type { AskStore } from '../../src/protocol/index.js'
import { settle } from '../support/settle.js'

/** The store of one property run, and how the run waits on it. */
export interface RunStore {
  store: AskStore
  /**
   * Resolves once the seams on `store` have done what they can without the
   * clock moving: for a store in this process, {@link settle}; for one
   * across a network, once its I/O and the change feed are through too.
   */
  settle(): Promise<void>
  /** Ends what `settle` itself holds on the store (a watch), so that what stays armed is the seams'. */
  release(): void
  /** Closes the store and removes what the run made. */
  dispose(): Promise<void>
}

/** A store in this process (memory, SQLite): its work ends within a few turns. */
export function inProcess(open: () => AskStore): () => Promise<RunStore> {
  return async () => {
    const store = open()
    return { store, settle, release: () => {}, dispose: () => store.close() }
  }
}

/** Fake timers and `Date` for each test of the calling suite; `setImmediate` stays real, for I/O. */
export function useFakeClock(): void {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    })
  })
  afterEach(() => {
    vi.useRealTimers()
  })
}

/**
 * How far ahead of the real clock a run's fake clock starts: a database that
 * checks deadlines by its own clock (Postgres) never finds one passed before
 * the seams do. The properties are about the seams' agreement; the
 * database's own deadline check has its tests beside the store.
 */
const AHEAD_MS = 3_600_000

/** Starts a run's fake clock afresh: no timers, {@link AHEAD_MS} past the real time it was installed at. */
export function restartClock(): void {
  vi.clearAllTimers() // which also puts the fake clock back to when it was installed
  vi.setSystemTime(Date.now() + AHEAD_MS)
}

/**
 * The clock moves in steps no longer than the shortest deadline the
 * properties ask, the seams settling after each: a store's I/O takes no time
 * on this clock, as it takes little beside real deadlines.
 */
const STEP_MS = 250

/** Moves the fake clock `ms` forward in steps, `settle` after each; what fell due meanwhile runs too. */
export async function advance(ms: number, settle: RunStore['settle']): Promise<void> {
  for (let left = ms; left > 0; left -= STEP_MS) {
    await vi.advanceTimersByTimeAsync(Math.min(STEP_MS, left))
    await settle()
  }
  await runDue(settle)
}

/**
 * Runs the timers that fell due while the seams settled (a sweep armed for
 * a deadline already past, say), as a real clock would at once, and settles.
 */
export async function runDue(settle: RunStore['settle']): Promise<void> {
  await vi.advanceTimersByTimeAsync(0)
  await settle()
}
