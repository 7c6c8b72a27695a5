import { admitTo, memorySettlements, purgeFrom, snapshot } from './memory-asks.js'
import type { AskTable } from './memory-asks.js'
import { memoryNotifications } from './memory-notifications.js'
import { memoryRecords } from './memory-history.js'
import { notifyEach } from './rows.js'
import { LEASE_RETENTION_MS } from './types.js'
import type { AdmitResult, AskStore, NewAskRecord, SeamLease, StoreChange } from './types.js'

/**
 * The default store: asks live in this process's memory and nothing outlives
 * it. Seams created with the same memory store share its asks exactly as
 * seams in several processes share a SQLite file or a Postgres database, so it
 * is also the quickest way to run a fleet in one process (and to test one).
 *
 * @example
 * ```ts
 * import { createMemoryStore, createUserQuestions } from 'askseam'
 *
 * const store = createMemoryStore()
 * const worker = createUserQuestions({ store })
 * const console = createUserQuestions({ store }) // presents the worker's asks too
 * ```
 *
 * A settled ask with a key is kept until {@link AskStore.purge}: asking with
 * the key again replays its outcome. Of the settled asks without one, the
 * store keeps only the newest `keepSettled`, for late readers (a second UI's
 * answer, told the ask is no longer pending); older ones are forgotten, so a
 * long-running seam on the default store does not grow with every ask.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): AskStore {
  const notifications = memoryNotifications(() => open())
  const table: AskTable = {
    // Insertion order is admission order, which pending() keeps.
    asks: new Map(),
    byKey: new Map(),
    settledKeyless: keylessRetention(options.keepSettled ?? DEFAULT_KEEP_SETTLED, (askId) => {
      table.asks.delete(askId)
      forget(askId)
    }),
  }
  const { asks } = table
  const leases = memoryLeases((change) => notify(change))
  const settlements = memorySettlements(table, (change) => notify(change))
  const records = memoryRecords(table, settlements.settle, (askId) =>
    notifications.delivered(askId),
  )
  /** Forgets what the store keeps beside an ask it no longer holds. */
  const forget = (askId: string): void => {
    notifications.forget(askId)
    records.forget(askId)
  }
  const listeners = new Set<(change: StoreChange) => void>()
  let closed = false

  const notify = (change: StoreChange): void => {
    // After the write's own promise settles, as a database's change feed would.
    queueMicrotask(() => notifyEach(listeners, change))
  }
  const open = (): void => {
    if (closed) throw new Error('the memory store is closed')
  }

  return {
    processLocal: true,

    async admit(ask: NewAskRecord): Promise<AdmitResult> {
      open()
      const result = admitTo(table, ask)
      if (result.status === 'admitted')
        notify({ type: 'ask.admitted', record: { ...result.record } })
      return result
    },

    async settle(askId, outcome, settledAt) {
      open()
      return settlements.settle(askId, outcome, settledAt)
    },

    async vote(askId, vote) {
      open()
      return records.vote(askId, vote)
    },

    async votes(askId) {
      open()
      return records.votes(askId)
    },

    async record(askId, event) {
      open()
      records.record(askId, event)
    },

    async history(query) {
      open()
      return records.history(query)
    },

    async get(askId) {
      open()
      const record = asks.get(askId)
      return record === undefined ? undefined : snapshot(record)
    },

    async pending() {
      open()
      return [...asks.values()]
        .filter((record) => record.state === 'pending')
        .sort((a, b) => a.startedAt - b.startedAt || (a.askId < b.askId ? -1 : 1))
        .map(snapshot)
    },

    async expireOverdue(now) {
      open()
      return settlements.expireOverdue(now)
    },

    async endOrphans(now) {
      open()
      const ended = settlements.endOrphans(now, (seamId) => leases.holds(seamId, now))
      leases.prune(now)
      return ended
    },

    async heartbeat(lease) {
      open()
      leases.heartbeat(lease)
    },

    async release(seamId) {
      open()
      leases.release(seamId)
    },

    async leases(now) {
      open()
      return leases.live(now)
    },

    watch(listener) {
      const own = (change: StoreChange) => listener(change)
      listeners.add(own)
      return () => {
        listeners.delete(own)
      }
    },

    async purge({ settledBefore }) {
      open()
      const purged = purgeFrom(table, settledBefore, forget)
      // As the durable stores do: their watchers may not have read a purged ask's settlement.
      if (purged > 0) notify({ type: 'resync' })
      return purged
    },

    notifications: {
      claim: (claim) => notifications.claim(claim),
      finish: (finish) => notifications.finish(finish),
      release: (eventId, holder) => notifications.release(eventId, holder),
      unfinished: () => notifications.unfinished(),
    },

    async close() {
      closed = true
      listeners.clear()
    },
  }
}

/**
 * Settled asks without a key, oldest settlement first: past `keepSettled`
 * the oldest is forgotten.
 */
function keylessRetention(keepSettled: number, forget: (askId: string) => void) {
  if (!Number.isSafeInteger(keepSettled) || keepSettled < 0) {
    throw new TypeError('createMemoryStore: keepSettled must be a whole number of asks, 0 or more')
  }
  const settled = new Set<string>()
  return {
    add(askId: string): void {
      settled.add(askId)
      while (settled.size > keepSettled) {
        const oldest = settled.values().next().value as string
        settled.delete(oldest)
        forget(oldest)
      }
    },
    delete(askId: string): void {
      settled.delete(askId)
    },
  }
}

/** The seams' leases of a memory store. */
function memoryLeases(notify: (change: StoreChange) => void) {
  const leases = new Map<string, SeamLease>()
  return {
    heartbeat(lease: SeamLease): void {
      const before = leases.get(lease.seamId)
      leases.set(lease.seamId, { ...lease })
      if (
        before === undefined ||
        before.providerActive !== lease.providerActive ||
        before.expiresAt !== lease.expiresAt
      ) {
        notify({ type: 'leases.changed' })
      }
    },
    release(seamId: string): void {
      if (leases.delete(seamId)) notify({ type: 'leases.changed' })
    },
    live(now: number): SeamLease[] {
      return [...leases.values()].filter((lease) => lease.expiresAt > now).map((l) => ({ ...l }))
    },
    /** Whether the seam holds a lease that has not lapsed at `now`. */
    holds(seamId: string, now: number): boolean {
      const lease = leases.get(seamId)
      return lease !== undefined && lease.expiresAt > now
    },
    /** Forgets leases already dead to every reader: no one is told they go. */
    prune(now: number): void {
      for (const [seamId, lease] of leases) {
        if (lease.expiresAt <= now - LEASE_RETENTION_MS) leases.delete(seamId)
      }
    },
  }
}

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * How many settled asks without a key the store keeps, newest first; the
   * rest are forgotten (`get` no longer finds them). Asks with a key are kept
   * until `purge`. @default 1000
   */
  keepSettled?: number
}

const DEFAULT_KEEP_SETTLED = 1_000
