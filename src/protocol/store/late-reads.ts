/*
 * A reader that follows a store through its change feed and also reads it
 * (its pending asks, or one ask) sees what the store held when the read
 * began. An ask heard settled while the read was under way (on the feed, or
 * from a presentation of it that ended here) may come back from it still
 * pending: that answer is stale and must not bring the ask back. One rule
 * for every follower of a store (the seam's, the notifier's).
 */

/** What a read brought, and the asks heard settled while it was under way. */
export interface TrackedRead<T> {
  readonly value: T
  /** Asks the read may show still pending, though they were heard settled since it began. */
  readonly settledMeanwhile: ReadonlySet<string>
}

/** Reads of one store's follower, each told of the settlements heard while it is under way. */
export interface StoreReads {
  /** Reads with `load`; its answer comes with the asks heard settled meanwhile. */
  read<T>(load: () => Promise<T>): Promise<TrackedRead<T>>
  /** `askId` is known settled (the feed, a read or a presentation said so): every read under way hears of it. */
  settled(askId: string): void
}

/** Creates a follower's {@link StoreReads}. */
export function createStoreReads(): StoreReads {
  const underWay = new Set<Set<string>>()
  return {
    async read(load) {
      const settledMeanwhile = new Set<string>()
      underWay.add(settledMeanwhile)
      try {
        return { value: await load(), settledMeanwhile }
      } finally {
        underWay.delete(settledMeanwhile)
      }
    },
    settled(askId) {
      for (const meanwhile of underWay) meanwhile.add(askId)
    },
  }
}
