import { UserQuestionError } from '../vocabulary/index.js'

/**
 * Watches caller signals with one listener per signal, however many asks
 * share it. Tool runtimes often hand every call of a run the same signal; a
 * listener per ask would pile up on it (and trip Node's listener-leak
 * warning), and each settled ask would have to find and remove its own.
 *
 * A caller's signal is untrusted (issue 10): one whose `addEventListener`
 * throws cannot be watched, so `watch` throws `INVALID_REQUEST`
 * (`details.field: 'signal'`) for the seam to reject with; one whose
 * `removeEventListener` or `reason` throws never stops an ask from settling.
 */
export interface AbortFanout {
  /** Calls `onAbort(reason)` once when `signal` aborts. Returns the unwatch, idempotent and never throwing. */
  watch(signal: AbortSignal, onAbort: (reason: unknown) => void): () => void
}

function reasonOf(signal: AbortSignal): unknown {
  try {
    return signal.reason
  } catch (error: unknown) {
    return error
  }
}

/** Creates an {@link AbortFanout}. Its bookkeeping for a signal is gone once no ask watches it. */
export function createAbortFanout(): AbortFanout {
  const watchers = new WeakMap<
    AbortSignal,
    { callbacks: Set<(reason: unknown) => void>; listener: () => void }
  >()
  return {
    watch(signal, onAbort) {
      let entry = watchers.get(signal)
      if (entry === undefined) {
        const callbacks = new Set<(reason: unknown) => void>()
        const listener = () => {
          watchers.delete(signal)
          const reason = reasonOf(signal)
          for (const callback of [...callbacks]) callback(reason)
        }
        try {
          signal.addEventListener('abort', listener, { once: true })
        } catch (error: unknown) {
          throw new UserQuestionError('the signal cannot be listened to', 'INVALID_REQUEST', {
            cause: error,
            details: { field: 'signal' },
          })
        }
        entry = { callbacks, listener }
        watchers.set(signal, entry)
      }
      const { callbacks, listener } = entry
      // A distinct wrapper per watch, so the same callback can be watched twice.
      const callback = (reason: unknown) => onAbort(reason)
      callbacks.add(callback)
      return () => {
        if (!callbacks.delete(callback) || callbacks.size > 0) return
        if (watchers.get(signal)?.listener === listener) watchers.delete(signal)
        try {
          signal.removeEventListener('abort', listener)
        } catch {
          // The listener is `once` and its callbacks are gone: a late abort calls nobody.
        }
      }
    },
  }
}
