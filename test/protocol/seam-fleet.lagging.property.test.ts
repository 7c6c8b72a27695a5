/**
 * The fleet property on a memory store that answers like one across a
 * network: each read (pending asks, one ask) sees the store as it was when
 * made and answers a turn of the event loop later, and each change reaches
 * a seam's feed a turn after it happened. A seam's read can then land
 * after an ask it found pending has settled, and before the feed says so.
 */
import { createMemoryStore } from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { settle } from '../support/settle.js'
import { seamFleetSuite } from './seam-fleet-suite.js'

/** A turn of the event loop later (`setImmediate` stays real under the properties' fake clock). */
const aTurnLater = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)))

function laggingMemoryStore(): AskStore {
  const inner = createMemoryStore()
  const store = Object.create(inner) as AskStore
  store.pending = () => inner.pending().then(aTurnLater)
  store.get = (askId) => inner.get(askId).then(aTurnLater)
  store.watch = (listener) => {
    let watching = true
    const unwatch = inner.watch((change) => {
      void aTurnLater(change).then((late) => {
        if (watching) listener(late)
      })
    })
    return () => {
      watching = false
      unwatch()
    }
  }
  return store
}

seamFleetSuite('memory store answering a turn late', async () => {
  const store = laggingMemoryStore()
  return {
    store,
    // Each read and each change takes a turn more than on the memory store.
    settle: async () => {
      for (let round = 0; round < 3; round++) await settle()
    },
    release: () => {},
    dispose: () => store.close(),
  }
})
