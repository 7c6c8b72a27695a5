import { UserQuestionError, abortReason } from '../vocabulary/index.js'

/**
 * Watches caller signals with one listener per signal, however many asks
 * share it. Tool runtimes often hand every call of a run the same signal; a
 * listener per ask would pile up on it (and trip Node's listener-leak
 * warning), and each settled ask would have to find and remove its own.
 *
 * A watcher is an object the fanout hands back to its one `onAbort`, so a
 * watch costs a place in a set, not a closure per ask.
 *
 * A caller's signal is untrusted (issue 10): one whose `addEventListener`
 * throws cannot be watched, so `watch` throws `INVALID_REQUEST`
 * (`details.field: 'signal'`) for the seam to reject with; one whose
 * `removeEventListener` or `reason` throws never stops an ask from settling.
 */
export interface AbortFanout<TWatcher extends object> {
  /** Hands `watcher` to `onAbort` once, with the reason, when `signal` aborts. Watching twice is one watch. */
  watch(signal: AbortSignal, watcher: TWatcher): void
  /** Stops watching; idempotent and never throwing. */
  unwatch(signal: AbortSignal, watcher: TWatcher): void
}

interface Watched<TWatcher> {
  watchers: Set<TWatcher>
  listener: () => void
}

/** Creates an {@link AbortFanout}. Its bookkeeping for a signal is gone once nobody watches it. */
export function createAbortFanout<TWatcher extends object>(
  onAbort: (watcher: TWatcher, reason: unknown) => void,
): AbortFanout<TWatcher> {
  const signals = new WeakMap<AbortSignal, Watched<TWatcher>>()
  const forget = (signal: AbortSignal, watched: Watched<TWatcher>) => {
    signals.delete(signal)
    try {
      signal.removeEventListener('abort', watched.listener)
    } catch {
      // The listener is `once` and nobody watches any more: a late abort calls nobody.
    }
  }
  return {
    watch(signal, watcher) {
      let watched = signals.get(signal)
      if (watched === undefined) {
        const fresh: Watched<TWatcher> = {
          watchers: new Set(),
          listener: () => {
            const reason = abortReason(signal)
            for (const each of [...fresh.watchers]) onAbort(each, reason)
            if (signals.get(signal) === fresh) forget(signal, fresh)
          },
        }
        try {
          signal.addEventListener('abort', fresh.listener, { once: true })
        } catch (error: unknown) {
          throw new UserQuestionError('the signal cannot be listened to', 'INVALID_REQUEST', {
            cause: error,
            details: { field: 'signal' },
          })
        }
        watched = fresh
        signals.set(signal, watched)
      }
      watched.watchers.add(watcher)
    },
    unwatch(signal, watcher) {
      const watched = signals.get(signal)
      if (watched === undefined || !watched.watchers.delete(watcher)) return
      if (watched.watchers.size === 0) forget(signal, watched)
    },
  }
}
