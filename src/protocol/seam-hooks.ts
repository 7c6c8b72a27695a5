import type { UserQuestions } from './seam-api.js'

/*
 * What askseam's own layers may ask of a seam beyond its public interface,
 * kept apart from `seam.ts` so that reaching it loads no statechart (an
 * entry point such as `askseam/otel` loads only its own peer).
 */

/** A seam's hooks, registered by `createUserQuestions`. */
export interface SeamHooks {
  /** Drops the seam as a crashed process would. */
  crash(): void
  /** Reads these asks from the store now; resolves once the reads are done. */
  catchUp(askIds: readonly string[]): Promise<void>
}

const hooks = new WeakMap<UserQuestions, SeamHooks>()

/** Registers `seam`'s hooks (called once, by `createUserQuestions`). */
export function registerSeamHooks(seam: UserQuestions, seamHooks: SeamHooks): void {
  hooks.set(seam, seamHooks)
}

/**
 * Testing only (not exported from the package): drops `seam` as a crashed
 * process would. Its timers stop and it stops listening, but nothing is
 * released or settled: its lease lapses on its own and its callers never hear.
 */
export function dropSeamForTesting(seam: UserQuestions): void {
  hooks.get(seam)?.crash()
}

/**
 * Within askseam only (exported from `protocol/internal`): makes `seam` read
 * these asks from its store now instead of when its change feed brings them,
 * for a layer that learnt from the store that one changed (an MCP round on an
 * instance that has not yet heard of an answer committed on another). A
 * settled ask's outcome reaches this seam's callers and presentations; another
 * seam's pending ask is shown. Resolves once the reads are done; does nothing
 * for an object `createUserQuestions` did not make.
 */
export function catchUpWithStore(seam: UserQuestions, askIds: readonly string[]): Promise<void> {
  return hooks.get(seam)?.catchUp(askIds) ?? Promise.resolve()
}
