/**
 * The AskStore contract (src/protocol/store/contract.ts, public as
 * `askseam/store`) run through vitest for each of askseam's stores, plus
 * what only askseam's own stores promise beyond it. The asks and outcomes
 * the contract writes are the store tests' fixtures too.
 */
import { describe, expect, it } from 'vitest'
import { storeContract } from '../../src/protocol/store/index.js'
import type { StoreChange, StoreContractOptions } from '../../src/protocol/store/index.js'
import { heard, newAsk, until } from '../../src/protocol/store/contract-fixtures.js'
import { collectingUncaught } from '../support/uncaught.js'

export {
  answered,
  callerAborted,
  cancelled,
  newAsk,
} from '../../src/protocol/store/contract-fixtures.js'

export function describeStoreContract(name: string, options: StoreContractOptions): void {
  describe(`AskStore contract: ${name}`, () => {
    for (const check of storeContract(options)) it(check.name, check.run, check.timeoutMs)
  })

  // askseam's stores hand changes out through notifyEach: a throwing listener
  // neither starves the others nor is swallowed. The contract leaves it out:
  // seeing the throw reach the process takes a collector of uncaught errors
  // that only a test runner's own harness can install.
  describe(`askseam store: ${name}`, () => {
    it('tells every watcher even when one throws, and lets the throw reach the process', async () => {
      const storage = await options.open()
      const opened = new Set([storage.store])
      try {
        const other = await storage.reopen()
        opened.add(other)
        await collectingUncaught(async (uncaught) => {
          const seen: StoreChange[] = []
          storage.store.watch(() => {
            throw new Error('listener fault')
          })
          storage.store.watch((change) => seen.push(change))
          const ask = newAsk()
          await other.admit(ask)
          await until(() => heard(seen, 'ask.admitted', ask.askId), 'the second watcher')
          await until(() => uncaught.length > 0, 'the listener fault')
          expect(uncaught.length).toBeGreaterThan(0)
          for (const error of uncaught) expect(error).toEqual(new Error('listener fault'))
        })
      } finally {
        for (const store of opened) await store.close()
        await storage.destroy?.()
      }
    })
  })
}
