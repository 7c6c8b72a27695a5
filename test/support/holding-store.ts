import type { AskStore } from '../../src/protocol/index.js'
import type { AskOutcome } from '../../src/vocabulary/index.js'

/** One write a {@link holdingStore} holds until the test says how it ends. */
export interface HeldWrite {
  readonly kind: 'admit' | 'settle' | 'vote' | 'votes'
  readonly askId: string
  /** The outcome offered, for a settlement (and for a vote, the one its last approval settles with). */
  readonly outcome: AskOutcome | undefined
  /** Lets the write reach the store; resolves once the writer has the store's answer. */
  run(): Promise<void>
  /**
   * Lets the write reach the store now, but keeps the store's answer from the
   * writer (a reply still on the wire) until the function it resolves with is called.
   */
  land(): Promise<() => void>
  /** Fails the write with `error`, as an unreachable store would; the store is not touched. */
  fail(error: unknown): void
  /**
   * Lets the write reach the store, then fails it with `error` all the same,
   * as a connection dropped after the commit and before its reply would.
   * Resolves once the store has it.
   */
  lose(error: unknown): Promise<void>
}

/** A store wrapper whose writes (and reads of votes) wait for the test, and those it holds, oldest first. */
export interface HoldingStore {
  readonly store: AskStore
  readonly held: HeldWrite[]
  /** From now on every write goes straight through; the ones held go too, in order. */
  release(): Promise<void>
}

/**
 * Wraps `inner` so that its settlements and votes (and, with `admissions`,
 * its admissions; with `reads`, its reads of an ask's votes) wait until the
 * test runs or fails each one: what is in flight
 * between a seam and its store becomes a state a test can stand in. Every
 * other call goes straight to `inner`.
 */
export function holdingStore(
  inner: AskStore,
  options: { admissions?: boolean; reads?: boolean } = {},
): HoldingStore {
  const held: HeldWrite[] = []
  let holding = true
  const store: AskStore = Object.create(inner) as AskStore
  const hold = <T>(
    kind: HeldWrite['kind'],
    askId: string,
    outcome: AskOutcome | undefined,
    write: () => Promise<T>,
  ) =>
    new Promise<T>((resolve, reject) => {
      held.push({
        kind,
        askId,
        outcome,
        run: () => write().then(resolve, reject),
        land: () =>
          write().then(
            (result) => () => resolve(result),
            (error: unknown) => () => reject(error),
          ),
        fail: reject,
        lose: (error) =>
          write().then(
            () => reject(error),
            () => reject(error),
          ),
      })
    })
  store.settle = (askId, outcome, settledAt) =>
    holding
      ? hold('settle', askId, outcome, () => inner.settle(askId, outcome, settledAt))
      : inner.settle(askId, outcome, settledAt)
  store.vote = (askId, vote) =>
    holding
      ? hold('vote', askId, vote.outcome, () => inner.vote(askId, vote))
      : inner.vote(askId, vote)
  store.votes = (askId) =>
    holding && options.reads === true
      ? hold('votes', askId, undefined, () => inner.votes(askId))
      : inner.votes(askId)
  store.admit = (ask) =>
    holding && options.admissions === true
      ? hold('admit', ask.askId, undefined, () => inner.admit(ask))
      : inner.admit(ask)
  return {
    store,
    held,
    async release() {
      holding = false
      while (held.length > 0) await held.shift()!.run()
    },
  }
}
