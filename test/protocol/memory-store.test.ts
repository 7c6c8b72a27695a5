import { createMemoryStore } from '../../src/protocol/index.js'
import { describeStoreContract } from '../stores/store-contract.js'

// Two handles on one memory store are the same object: in one process, seams
// share a memory store by sharing the instance.
describeStoreContract('memory', async () => {
  const store = createMemoryStore()
  return { store, reopen: async () => store }
})
