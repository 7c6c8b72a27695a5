import type { AskStore } from '../../src/protocol/index.js'
import { settle } from '../support/settle.js'

/** The store of one property run, and how the run waits on it. */
export interface RunStore {
  store: AskStore
  /**
   * Resolves once the seams on `store` have done what they can without the
   * clock moving: for a store in this process, {@link settle}; for one
   * across a network, once its I/O and the change feed are through too.
   */
  settle(): Promise<void>
  /** Ends what `settle` itself holds on the store (a watch), so that what stays armed is the seams'. */
  release(): void
  /** Closes the store and removes what the run made. */
  dispose(): Promise<void>
}

/** A store in this process (memory, SQLite): its work ends within a few turns. */
export function inProcess(open: () => AskStore): () => Promise<RunStore> {
  return async () => {
    const store = open()
    return { store, settle, release: () => {}, dispose: () => store.close() }
  }
}
