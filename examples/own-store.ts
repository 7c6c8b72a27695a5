import { createMemoryStore } from 'askseam'
import { storeContract } from 'askseam/store'
import type { AskStore } from 'askseam/store'

// A store of your own implements AskStore. This one keeps its asks in the
// memory store and writes an audit line for every settlement it commits.
function createAuditedStore(audit: string[]): AskStore {
  const inner = createMemoryStore()
  return {
    ...inner,
    async settle(askId, outcome, settledAt) {
      const result = await inner.settle(askId, outcome, settledAt)
      if (result?.won === true) audit.push(`${askId} ${outcome.status}`)
      return result
    },
  }
}

// storeContract is the list of checks askseam's own stores pass: run each
// under any test framework (here, by hand).
const audit: string[] = []
const checks = storeContract({
  open: async () => {
    const store = createAuditedStore(audit)
    // Another process's handle on the same storage: a store in one process is itself.
    return { store, reopen: async () => store }
  },
})
let passed = 0
for (const check of checks) {
  await check.run()
  passed += 1
}
console.log(`${passed} of ${checks.length} checks passed`)
console.log(`${audit.length} settlements audited`)
// 53 of 53 checks passed
// 27 settlements audited
