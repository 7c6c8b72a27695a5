import type { AskOutcome, AskUserQuestionItem, TraceContext } from '../../vocabulary/index.js'

/**
 * The durable side of askseam (DESIGN §10). A store holds every admitted ask
 * and decides each one's outcome: the first settlement committed to it wins,
 * whichever process wrote it. Seams that share a store share its asks; each
 * seam's machines follow what the store committed.
 *
 * Every method may reject (an unreachable server, a locked file, a corrupt
 * row); the seam turns that into `STORE_FAILED` for the asks it touches and
 * keeps working once the store recovers. Rows are parsed, never trusted: a
 * store returns only records that pass {@link parseAskRecord}.
 */
export interface AskStore {
  /**
   * `true` when nothing in the store outlives this process (the memory
   * store): every seam sharing it lives here, so a lease never lapses by
   * itself and is not renewed, and a keyed ask is not a question left for
   * later (DESIGN §10: on a durable store it waits for a UI). A durable store
   * leaves it out. @default false
   */
  readonly processLocal?: boolean
  /**
   * Writes a new pending ask. With a `key`, the write is atomic with the
   * look-up: when the store already holds an ask with that key whose outcome
   * is still pending or is replayed (`isReplayedOutcome`), nothing is
   * written and that ask comes back as `existing`; an ask with the key whose
   * outcome is not replayed gives its key up to the new one.
   * The caller compares questions: the store does not.
   */
  admit(ask: NewAskRecord): Promise<AdmitResult>
  /**
   * The one conditional write: settles `askId` with `outcome` if, and only
   * if, it is still pending. A deadline is final (DESIGN §10): an ask whose
   * deadline is at or before the time of the write itself (never earlier
   * than `settledAt`: a wait for a lock counts; the database's own clock where
   * there is one) is settled with `timeoutOutcome`
   * instead, and the writer does not win unless it offered that outcome.
   * Resolves with the ask as the store now holds it, whoever won
   * (`record.outcome` is the committed outcome), and whether this call's
   * write is the one committed; or `undefined` for an ask the store does not
   * hold.
   */
  settle(askId: string, outcome: AskOutcome, settledAt: number): Promise<SettleResult | undefined>
  /** The ask with this id, pending or settled. */
  get(askId: string): Promise<AskRecord | undefined>
  /** Every pending ask, oldest first (by `startedAt`, then `askId`). */
  pending(): Promise<AskRecord[]>
  /**
   * Ends, in one write, every pending ask whose deadline is at or before
   * `now` with `timeoutOutcome`; resolves with the asks it ended.
   * Safe to run from every seam at once: each ask is ended by one of them.
   */
  expireOverdue(now: number): Promise<AskRecord[]>
  /**
   * Ends every pending keyless ask whose owner holds no live lease at `now`
   * with `ownerGoneOutcome`; resolves with the asks it ended. Keyed asks
   * of a dead owner stay pending: a later `ask` with the key resumes them.
   * Also deletes the leases that expired `LEASE_RETENTION_MS` or more
   * before `now`: the seams that held them are long dead, and a store shared
   * by short-lived processes would otherwise keep one row per process forever.
   */
  endOrphans(now: number): Promise<AskRecord[]>
  /** Writes (or renews) a seam's lease. */
  heartbeat(lease: SeamLease): Promise<void>
  /** Removes a seam's lease at once (the seam closed). */
  release(seamId: string): Promise<void>
  /** The leases that are live at `now` (`expiresAt > now`). */
  leases(now: number): Promise<SeamLease[]>
  /**
   * Calls `listener` after every change committed to the store, by this
   * process or another. Delivery may be late (a poll), coalesced, repeated,
   * or replaced by `{ type: 'resync' }` when the store may have missed some
   * (a reconnect): then the listener rereads what it cares about.
   * Returns the unsubscribe, idempotent.
   */
  watch(listener: (change: StoreChange) => void): () => void
  /**
   * Deletes settled asks whose `settledAt` is before `settledBefore`; resolves
   * with how many. When it deletes any, watchers (in every process) are told
   * `{ type: 'resync' }`: one may still show an ask whose settlement it had
   * not read when the row went, and only a reread shows it is gone.
   */
  purge(options: { settledBefore: number }): Promise<number>
  /** Releases the store's connections and timers. A seam never calls it: several may share one store. */
  close(): Promise<void>
}

/** What {@link AskStore.admit} writes. */
export interface NewAskRecord {
  /** Unique across every process sharing the store (the seam mints it). */
  askId: string
  key?: string
  /** Validated questions. */
  questions: AskUserQuestionItem[]
  agentId?: string
  /** The seam that admitted the ask; its lease decides whether a keyless ask is orphaned. */
  ownerSeamId: string
  /** Epoch milliseconds. */
  startedAt: number
  /** Absolute deadline, epoch milliseconds, computed once at admission. */
  deadline?: number
  /**
   * The asking process's trace context (DESIGN §13), kept so the process
   * that presents the ask can link to the ask's trace. A store keeps it as
   * written; read back, a malformed one is dropped (`readTraceContext`),
   * never a reason to refuse the row.
   */
  traceContext?: TraceContext
}

/** An ask as the store holds it. */
export interface AskRecord extends NewAskRecord {
  state: 'pending' | 'settled'
  /** Present exactly when `state` is `settled`. */
  outcome?: AskOutcome
  settledAt?: number
}

/** The answer of {@link AskStore.admit}. */
export type AdmitResult =
  { status: 'admitted'; record: AskRecord } | { status: 'existing'; record: AskRecord }

/**
 * The answer of {@link AskStore.settle}. `won` comes from the write itself
 * (the conditional update changed the row), never from comparing what was
 * read back: two seams may offer the same outcome in the same millisecond,
 * and only one of them wrote it.
 */
export interface SettleResult {
  /** The ask as the store now holds it: `record.outcome` is the committed outcome, whoever wrote it. */
  record: AskRecord
  /** Whether this call's write is the one committed. */
  won: boolean
}

/** A live seam's claim to be alive, and whether it has a provider. */
export interface SeamLease {
  seamId: string
  providerActive: boolean
  /** Epoch milliseconds; the seam counts as dead after it. */
  expiresAt: number
}

/** What {@link AskStore.watch} reports. */
export type StoreChange =
  | { type: 'ask.admitted'; record: AskRecord }
  | { type: 'ask.settled'; record: AskRecord }
  | { type: 'leases.changed' }
  | { type: 'resync' }

/** Every store's schema version; rows carry it, and a row of another version is not read. */
export const STORE_SCHEMA_VERSION = 1

/**
 * How long a lease is kept after it expired before {@link AskStore.endOrphans}
 * deletes it. An expired lease already counts as dead; the margin only keeps
 * a host whose clock lags behind from seeing a lease vanish that it still
 * counts as live.
 */
export const LEASE_RETENTION_MS = 600_000 // 10 minutes
