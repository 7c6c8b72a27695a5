import {
  isReplayedOutcome,
  isTimeoutOutcome,
  ownerGoneOutcome,
  timeoutOutcome,
} from '../../vocabulary/index.js'
import type { AskOutcome } from '../../vocabulary/index.js'
import { memoryNotifications } from './memory-notifications.js'
import { notifyEach, parseAskRecord } from './rows.js'
import { LEASE_RETENTION_MS } from './types.js'
import type {
  AdmitResult,
  AskRecord,
  AskStore,
  NewAskRecord,
  SeamLease,
  StoreChange,
} from './types.js'

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
  // Insertion order is admission order, which pending() keeps.
  const asks = new Map<string, AskRecord>()
  const notifications = memoryNotifications(() => open())
  const settledKeyless = keylessRetention(options.keepSettled ?? DEFAULT_KEEP_SETTLED, (askId) => {
    asks.delete(askId)
    notifications.forget(askId)
  })
  const byKey = new Map<string, string>()
  const leases = memoryLeases((change) => notify(change))
  const listeners = new Set<(change: StoreChange) => void>()
  let closed = false

  // Records handed out are copies whose nested parts (questions, outcome) are
  // deeply frozen and shared: no holder can change what the store holds, and
  // an ask costs no deep copy per read. What is written is kept as JSON would
  // keep it, as a database's JSON column does.
  const snapshot = (record: AskRecord): AskRecord => ({ ...record })
  const notify = (change: StoreChange): void => {
    // After the write's own promise settles, as a database's change feed would.
    queueMicrotask(() => notifyEach(listeners, change))
  }
  const open = (): void => {
    if (closed) throw new Error('the memory store is closed')
  }
  const settleNow = (record: AskRecord, outcome: AskOutcome, settledAt: number): AskRecord => {
    record.state = 'settled'
    record.outcome = frozenJson(outcome)
    record.settledAt = settledAt
    const settled = snapshot(record)
    notify({ type: 'ask.settled', record: settled })
    if (record.key === undefined) settledKeyless.add(record.askId)
    return settled
  }

  /** Settles, at `now`, every pending ask `ending` names an outcome for. */
  const settleEach = (now: number, ending: (record: AskRecord) => AskOutcome | undefined) => {
    const ended: AskRecord[] = []
    for (const record of asks.values()) {
      const outcome = record.state === 'pending' ? ending(record) : undefined
      if (outcome !== undefined) ended.push(settleNow(record, outcome, now))
    }
    return ended
  }

  return {
    processLocal: true,

    async admit(ask: NewAskRecord): Promise<AdmitResult> {
      open()
      const result = admitTo({ asks, byKey, settledKeyless }, ask)
      if (result.status === 'admitted')
        notify({ type: 'ask.admitted', record: { ...result.record } })
      return result
    },

    async settle(askId, outcome, settledAt) {
      open()
      const record = asks.get(askId)
      if (record === undefined) return undefined
      if (record.state !== 'pending') return { record: snapshot(record), won: false }
      // A deadline is final: past it, the one outcome left is the timeout.
      if (
        record.deadline !== undefined &&
        record.deadline <= settledAt &&
        !isTimeoutOutcome(outcome)
      ) {
        return { record: settleNow(record, timeoutOutcome(record), settledAt), won: false }
      }
      return { record: settleNow(record, outcome, settledAt), won: true }
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
      return settleEach(now, (record) =>
        record.deadline !== undefined && record.deadline <= now
          ? timeoutOutcome(record)
          : undefined,
      )
    },

    async endOrphans(now) {
      open()
      const ended = settleEach(now, (record) =>
        record.key === undefined && !leases.holds(record.ownerSeamId, now)
          ? ownerGoneOutcome()
          : undefined,
      )
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
      let purged = 0
      for (const [askId, record] of asks) {
        if (record.state === 'settled' && (record.settledAt as number) < settledBefore) {
          asks.delete(askId)
          notifications.forget(askId)
          settledKeyless.delete(askId)
          if (record.key !== undefined && byKey.get(record.key) === askId) byKey.delete(record.key)
          purged += 1
        }
      }
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
 * Admits `ask` unless its key holds a pending ask, or one whose outcome is
 * replayed (DESIGN §10); an outcome that said nothing about the human gives
 * its key up.
 */
function admitTo(
  held: {
    asks: Map<string, AskRecord>
    byKey: Map<string, string>
    settledKeyless: { add(askId: string): void }
  },
  ask: NewAskRecord,
): AdmitResult {
  const { asks, byKey } = held
  if (asks.has(ask.askId)) throw new Error(`askId ${ask.askId} is already in the store`)
  const existing = ask.key === undefined ? undefined : asks.get(byKey.get(ask.key) ?? '')
  if (existing !== undefined) {
    if (existing.state === 'pending' || isReplayedOutcome(existing.outcome as AskOutcome)) {
      return { status: 'existing', record: { ...existing } }
    }
    delete existing.key
    held.settledKeyless.add(existing.askId)
  }
  // Parsed like any row read back, so a memory store is no more lenient than a database.
  const record = parseAskRecord({
    ...ask,
    questions: Object.isFrozen(ask.questions) ? ask.questions : frozenJson(ask.questions),
    state: 'pending',
  })
  asks.set(record.askId, record)
  if (record.key !== undefined) byKey.set(record.key, record.askId)
  return { status: 'admitted', record: { ...record } }
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

/**
 * A deeply frozen copy of `value` as `JSON.parse(JSON.stringify(value))`
 * would give it, so the memory store keeps what a database's JSON column
 * keeps. Plain objects, arrays and JSON's own values are copied in one pass;
 * anything else (a `toJSON`, a class instance, a number JSON cannot write)
 * goes through JSON itself.
 */
function frozenJson<T>(value: T): T {
  return copyJson(value) as T
}

function copyJson(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (value === 0) return 0 // JSON writes -0 as 0
      return Number.isFinite(value) ? value : null
    case 'object': {
      if (value === null) return null
      if (Array.isArray(value)) {
        const copy: unknown[] = []
        for (const each of value as unknown[]) {
          const item = copyJson(each)
          copy.push(item === undefined ? null : item)
        }
        return Object.freeze(copy)
      }
      const proto = Object.getPrototypeOf(value) as unknown
      if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) {
        const text = JSON.stringify(value) as string | undefined
        return text === undefined ? undefined : deepFreeze(JSON.parse(text) as unknown)
      }
      const copy: Record<string, unknown> = {}
      for (const key of Object.keys(value)) {
        const item = copyJson((value as Record<string, unknown>)[key])
        if (item !== undefined) copy[key] = item
      }
      return Object.freeze(copy)
    }
    case 'bigint':
      // Throws as JSON.stringify does: a database could not keep it either.
      return JSON.stringify(value)
    default:
      // Functions, symbols and undefined: JSON leaves them out.
      return undefined
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}
