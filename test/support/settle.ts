import { vi } from 'vitest'

// Taken before any test fakes the timers: a real turn of the event loop.
const realSetImmediate = globalThis.setImmediate

/** One real turn of the event loop: every microtask queued before it has run. */
const turn = () => new Promise<void>((resolve) => realSetImmediate(resolve))

/**
 * Lets a seam finish what it can do without time passing: every queued
 * microtask, and under fake timers every timer due now and what it queues.
 * Bounded to a few rounds of (real turn, due timers): the seam's work in one
 * instant is a short chain (admission, presentation, commit, their events),
 * and a test that waits on real I/O waits for what it needs instead.
 */
export async function settle(): Promise<void> {
  for (let round = 0; round < 4; round++) {
    await turn()
    if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0)
  }
}
