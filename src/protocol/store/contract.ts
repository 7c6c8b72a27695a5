import { admissionChecks } from './contract-admission.js'
import { deadlineChecks } from './contract-deadlines.js'
import type { CheckCase, StorageHandles } from './contract-fixtures.js'
import { feedChecks } from './contract-feed.js'
import { historyChecks } from './contract-history.js'
import { leaseChecks } from './contract-leases.js'
import { notificationChecks } from './contract-notifications.js'
import { settlementChecks } from './contract-settlement.js'
import type { AskStore } from './types.js'

/**
 * What {@link storeContract} checks a store with. Each check opens storage of
 * its own through `open`, so the checks may run in any order, alone, or (on
 * storage that allows it) at once.
 */
export interface StoreContractOptions {
  /**
   * Gives fresh, empty storage: a database, schema or file no other check
   * uses. Called once per check; the check closes every handle it opened
   * and then calls `destroy`, whether it passed or not.
   */
  open(): Promise<{
    /** A handle on the new storage. */
    store: AskStore
    /**
     * Opens another, independent handle on the same storage: the one another
     * process sharing the store would hold (its own connection, its own
     * change feed). A store that lives in one process may return `store`.
     */
    reopen(): Promise<AskStore>
    /** Removes the storage, once every handle on it is closed. */
    destroy?(): Promise<void>
  }>
  /**
   * The clock {@link AskStore.settle} checks the deadline against (DESIGN §10:
   * a deadline is final). `'settledAt'`: the time the writer passes, as the
   * memory and SQLite stores do; the suite then also checks the boundary to
   * the millisecond. `'store'`: the store's own clock, as the Postgres store
   * uses the database's; the suite then uses only deadlines a day before or
   * after this host's clock, which any store clock within a day of it agrees
   * with.
   * @default 'settledAt'
   */
  deadlineClock?: 'settledAt' | 'store'
}

/** One check of the contract, for any test runner to run. */
export interface StoreCheck {
  /** What the check proves, as a sentence about the store. */
  name: string
  /** Resolves when the store keeps the contract; rejects (an `AssertionError`, mostly) when it does not. */
  run(): Promise<void>
  /**
   * Set on a check that writes many asks, each a synced commit on a durable
   * store: how long to let it run, for runners whose default is shorter.
   */
  timeoutMs?: number
}

/**
 * The contract every {@link AskStore} keeps (DESIGN §10), as a list of checks
 * that run on any test runner: admission and keys, the one conditional
 * write and who won it, final deadlines, sweeps, leases, the change feed,
 * purging, what survives a round trip through the storage, the record of
 * asks (policies, votes, events, history: DESIGN §12), and (for a store
 * that has one) the notification ledger. askseam's own
 * stores pass it; a store of your own should too.
 *
 * A check throws (`node:assert`) when the store breaks the contract. Checks
 * that need another process's view of the storage use `reopen`.
 *
 * @example
 * ```ts
 * import { storeContract } from 'askseam/store'
 * import { describe, it } from 'vitest'
 *
 * describe('my store', () => {
 *   const checks = storeContract({
 *     open: async () => {
 *       const database = await createTestDatabase()
 *       return {
 *         store: createMyStore(database.url),
 *         reopen: async () => createMyStore(database.url),
 *         destroy: () => database.drop(),
 *       }
 *     },
 *   })
 *   for (const check of checks) it(check.name, check.run, check.timeoutMs)
 * })
 * ```
 */
export function storeContract(options: StoreContractOptions): StoreCheck[] {
  const clock = options.deadlineClock ?? 'settledAt'
  if (clock !== 'settledAt' && clock !== 'store') {
    throw new TypeError("storeContract: deadlineClock is 'settledAt' or 'store'")
  }
  const cases: CheckCase[] = [
    ...admissionChecks,
    ...settlementChecks,
    ...deadlineChecks,
    ...leaseChecks,
    ...feedChecks,
    ...notificationChecks,
    ...historyChecks,
  ]
  return cases
    .filter((check) => check.clock === undefined || check.clock === clock)
    .map(({ name, body, timeoutMs }) => {
      const check: StoreCheck = { name, run: () => onFreshStorage(options.open, body) }
      if (timeoutMs !== undefined) check.timeoutMs = timeoutMs
      return check
    })
}

/**
 * Runs `body` on fresh storage, then closes every handle it opened and
 * destroys the storage, also when `body` failed. The body's failure is the
 * one reported; a failure to clean up after a passing body fails the check.
 */
async function onFreshStorage(
  open: StoreContractOptions['open'],
  body: (handles: StorageHandles) => Promise<void>,
): Promise<void> {
  const storage = await open()
  const opened = [storage.store]
  const handles: StorageHandles = {
    store: storage.store,
    reopen: async () => {
      const store = await storage.reopen()
      opened.push(store)
      return store
    },
  }
  let failure: { error: unknown } | undefined
  try {
    await body(handles)
  } catch (error: unknown) {
    failure = { error }
  }
  const cleanup: unknown[] = []
  // A store in one process may hand out the same handle twice: closed once.
  for (const store of new Set(opened)) {
    try {
      await store.close()
    } catch (error: unknown) {
      cleanup.push(error)
    }
  }
  try {
    await storage.destroy?.()
  } catch (error: unknown) {
    cleanup.push(error)
  }
  if (failure !== undefined) throw failure.error
  if (cleanup.length > 0) {
    throw new AggregateError(cleanup, 'storeContract: the storage could not be closed or destroyed')
  }
}
