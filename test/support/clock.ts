import { vi } from 'vitest'
import { SimulatedClock } from 'xstate'
import { settle } from './settle.js'

/**
 * XState's SimulatedClock, remembering each timer armed on it (its delay,
 * when it falls due, whether it is still armed) and the delay of every timer
 * ever armed. `advance` fires each due timer at its own instant and lets what
 * it starts settle; with `movesDateNow` it moves `Date.now()` along (for a
 * machine that computes its delays from it; the test must use fake timers).
 */
export function recordingClock({ movesDateNow = false }: { movesDateNow?: boolean } = {}) {
  const simulated = new SimulatedClock()
  const armed = new Map<number, { delay: number; dueAt: number }>()
  const delays: number[] = []
  const moveTo = (instant: number) => {
    if (movesDateNow) vi.setSystemTime(instant)
    simulated.set(instant)
  }
  return {
    armed,
    delays,
    setTimeout(fn: (...args: unknown[]) => void, delay: number) {
      delays.push(delay)
      const id = simulated.setTimeout(() => {
        armed.delete(id)
        fn()
      }, delay) as number
      armed.set(id, { delay, dueAt: simulated.now() + delay })
      return id
    },
    clearTimeout(id: number) {
      armed.delete(id)
      simulated.clearTimeout(id)
    },
    /** Moves time on by `ms`, firing each timer at its own instant and letting what it starts settle. */
    async advance(ms: number) {
      const until = simulated.now() + ms
      // Bounded: a machine that re-arms a due timer for ever fails the test instead of hanging it.
      for (let fired = 0; ; fired++) {
        const next = Math.min(...[...armed.values()].map(({ dueAt }) => dueAt))
        if (!(next <= until)) break
        if (fired === 1_000) throw new Error(`timers keep falling due at ${next}`)
        moveTo(next)
        await settle()
      }
      moveTo(until)
      await settle()
    },
  }
}
