import { notifyEach } from '../../protocol/internal.js'
import type { StoreChange } from '../../protocol/internal.js'
import { createChangeFeed } from './change-feed.js'
import type { ChangeFeedDependencies } from './change-feed.js'

/**
 * The store's watchers and the change feed that serves them: the feed's
 * LISTEN connection is open while anyone watches.
 */
export function createWatchers(deps: Omit<ChangeFeedDependencies, 'emit'>) {
  const listeners = new Set<(change: StoreChange) => void>()
  const feed = createChangeFeed({ ...deps, emit: (change) => notifyEach(listeners, change) })
  return {
    /** Adds `listener`; the function returned removes it. */
    watch(listener: (change: StoreChange) => void): () => void {
      const own = (change: StoreChange) => listener(change)
      listeners.add(own)
      feed.start()
      return () => {
        if (!listeners.delete(own)) return
        // The last watcher gone, the LISTEN connection has no one to serve.
        if (listeners.size === 0) void feed.stop()
      }
    },

    /** Forgets every watcher and stops the feed. */
    stop(): Promise<void> {
      listeners.clear()
      return feed.stop()
    },
  }
}
