import { fromPromise, setup, stateIn } from 'xstate'

/** How long a failed read of the store waits before the notifier reads it again. */
export const RESYNC_RETRY_MS = 1_000

/** What the notifier tells its reads of the store. */
export type ResyncEvent =
  /** Read the store whole: at start, and whenever its feed says it may have missed changes. */
  | { type: 'read' }
  /** Read no more; a read under way is waited for. */
  | { type: 'close' }

/**
 * The notifier's reads of its store whole (its pending asks, and the
 * ledger's unfinished events), one at a time:
 *
 * - `idle`: nothing to read; `read` reads.
 * - `reading`: the `resync` actor reads. A `read` meanwhile (`again`)
 *   reads once more when it is done, whatever else is asked: the store may
 *   have changed after the read began. A read that fails waits in
 *   `retrying`. A `close` (`closing`) lets the read end, then is `closed`.
 * - `retrying`: waits `retryDelay` ({@link RESYNC_RETRY_MS}), then reads
 *   again; a `read` meanwhile reads at once.
 * - `closed`: final.
 *
 * The notifier provides `resync`, and stops its deliveries as it closes:
 * what a read finds after that starts nothing.
 */
export const resyncMachine = /* @__PURE__ */ setup({
  types: {
    events: {} as ResyncEvent,
  },
  actors: {
    // The notifier provides the read; without one, reading fails.
    resync: /* @__PURE__ */ fromPromise<void>(() =>
      Promise.reject(new Error('resyncMachine: no resync actor provided')),
    ),
  },
  guards: {
    isClosing: stateIn({ reading: 'closing' }),
    isAskedAgain: stateIn({ reading: 'again' }),
  },
  delays: {
    retryDelay: RESYNC_RETRY_MS,
  },
}).createMachine({
  id: 'resync',
  initial: 'idle',
  states: {
    idle: {
      on: { read: 'reading', close: 'closed' },
    },
    reading: {
      initial: 'once',
      invoke: {
        src: 'resync',
        onDone: [
          { guard: 'isClosing', target: 'closed' },
          { guard: 'isAskedAgain', target: 'reading', reenter: true },
          { target: 'idle' },
        ],
        onError: [
          { guard: 'isClosing', target: 'closed' },
          // Asked again or not, the store is out of reach: the retry reads it whole.
          { target: 'retrying' },
        ],
      },
      on: { close: '.closing' },
      states: {
        once: { on: { read: 'again' } },
        again: {},
        closing: {},
      },
    },
    retrying: {
      after: { retryDelay: 'reading' },
      on: { read: 'reading', close: 'closed' },
    },
    closed: { type: 'final' },
  },
})
