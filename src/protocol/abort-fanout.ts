/**
 * Watches caller signals with one listener per signal, however many asks
 * share it. Tool runtimes often hand every call of a run the same signal; a
 * listener per ask would pile up on it (and trip Node's listener-leak
 * warning), and each settled ask would have to find and remove its own.
 */
export interface AbortFanout {
  /** Calls `onAbort(reason)` once when `signal` aborts. Returns the unwatch, idempotent. */
  watch(signal: AbortSignal, onAbort: (reason: unknown) => void): () => void
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
          for (const callback of [...callbacks]) callback(signal.reason)
        }
        entry = { callbacks, listener }
        watchers.set(signal, entry)
        signal.addEventListener('abort', listener, { once: true })
      }
      const { callbacks, listener } = entry
      // A distinct wrapper per watch, so the same callback can be watched twice.
      const callback = (reason: unknown) => onAbort(reason)
      callbacks.add(callback)
      return () => {
        if (!callbacks.delete(callback) || callbacks.size > 0) return
        if (watchers.get(signal)?.listener === listener) watchers.delete(signal)
        signal.removeEventListener('abort', listener)
      }
    },
  }
}
