import type {
  AskErrorData,
  AskOutcome,
  AskPolicy,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  Responder,
  TraceContext,
} from '../../vocabulary/index.js'

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
  /**
   * The conditional write of an approval (DESIGN §12), for an ask whose
   * policy requires several: in one write, counts `vote.by`'s approval
   * unless the ask is no longer pending (`settled`, with the record) or that
   * responder's approval is counted already (`already-voted`); and, when it
   * is the `vote.required`-th distinct approval, settles the ask with
   * `vote.outcome`, its `by` listing every approver in the order they voted.
   * A deadline is final here as in {@link settle}: an overdue ask is settled
   * with `timeoutOutcome` and the vote is not counted. `undefined` for an ask
   * the store does not hold.
   */
  vote(askId: string, vote: NewVote): Promise<VoteResult | undefined>
  /**
   * The approvals counted on an ask so far (DESIGN §12), in the order they
   * were counted: what a presentation opening on it shows. Empty for an ask
   * the store does not hold.
   */
  votes(askId: string): Promise<Responder[]>
  /**
   * Appends an event to an ask's record (DESIGN §12): a presentation, or an
   * answer refused while the ask stayed pending. Nothing for an ask the store
   * does not hold. Admission, votes, settlement and delivered notifications
   * are recorded by the writes that make them.
   */
  record(askId: string, event: RecordedEvent): Promise<void>
  /** The record of every ask the query matches, newest first (see {@link HistoryQuery}). */
  history(query: HistoryQuery): Promise<AskHistory[]>
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
   * Deletes settled asks whose `settledAt` is before `settledBefore`, and the
   * notification ledger's events about them; resolves with how many asks. When it deletes any, watchers (in every process) are told
   * `{ type: 'resync' }`: one may still show an ask whose settlement it had
   * not read when the row went, and only a reread shows it is gone.
   */
  purge(options: { settledBefore: number }): Promise<number>
  /** Releases the store's connections and timers. A seam never calls it: several may share one store. */
  close(): Promise<void>
  /**
   * The ledger of webhook notifications (`askseam/notify`, DESIGN §13): an
   * optional capability. Several notifiers sharing the store claim each
   * event here, so it is sent once between them and, when its sender stops
   * or dies, sent by another or after a restart. askseam's memory, SQLite
   * and Postgres stores have it; a store without it cannot run a notifier.
   */
  readonly notifications?: NotificationLedger
}

/**
 * Who sends which webhook event (DESIGN §13): one row per event, keyed by an
 * event id the notifiers derive from the event itself, so every notifier
 * names the same event the same way. A notifier claims an event for a while
 * (`expiresAt`), renews the claim while it retries, and finishes it with an
 * ending; a claim that lapses (its holder stopped or died) is taken over by
 * the next notifier that asks. Times are the notifiers' epoch milliseconds.
 */
export interface NotificationLedger {
  /**
   * The one conditional write: records the event if the ledger lacks it, and
   * gives it to `holder` unless it is finished or another holder's claim is
   * live at `now` (`expiresAt > now`). A holder renewing its own claim
   * always gets it.
   */
  claim(claim: NotificationClaim): Promise<NotificationClaimResult>
  /**
   * Ends the event with `ending` (a later claim hears `finished`); a second
   * finish changes nothing. With `owes`, records that event in the same
   * write, unclaimed and unfinished, unless the ledger has it already: an
   * event that is due later (the settlement of an ask whose pending
   * notification was delivered) and must survive every notifier stopping.
   */
  finish(finish: NotificationFinish): Promise<void>
  /** Gives up `holder`'s claim at once, so another notifier may take the event without waiting for it to lapse. */
  release(eventId: string, holder: string): Promise<void>
  /** Every event recorded and not finished, by event id. */
  unfinished(): Promise<NotificationEntry[]>
}

/** What {@link NotificationLedger.claim} writes. */
export interface NotificationClaim {
  eventId: string
  /** The ask the event is about. */
  askId: string
  /** The notifier claiming (unique per notifier). */
  holder: string
  /** The claimant's clock now: a claim whose `expiresAt` is at or before it has lapsed. */
  now: number
  /** Until when the claim holds. */
  expiresAt: number
  /**
   * Claim only an event the ledger records already (one a finish `owes`):
   * an event it lacks is not written, and the answer is `unrecorded`.
   */
  recordedOnly?: boolean
}

/** The answer of {@link NotificationLedger.claim}. */
export type NotificationClaimResult =
  | { status: 'claimed' }
  | { status: 'held'; holder: string; expiresAt: number }
  | { status: 'finished'; ending: NotificationEnding }
  | { status: 'unrecorded' }

/**
 * How an event's delivery ended: `delivered` (a 2xx answer), `gone` (the
 * receiver answered 410 Gone), `given-up` (retries ran out), `dropped` (a
 * reminder or escalation whose ask settled first, or an event about an ask
 * the store no longer holds).
 */
export type NotificationEnding = 'delivered' | 'gone' | 'given-up' | 'dropped'

/** What {@link NotificationLedger.finish} writes. */
export interface NotificationFinish {
  eventId: string
  ending: NotificationEnding
  /** Epoch milliseconds. */
  at: number
  /** An event now owed, recorded in the same write (see {@link NotificationLedger.finish}). */
  owes?: { eventId: string; askId: string }
}

/** An event of {@link NotificationLedger.unfinished}. */
export interface NotificationEntry {
  eventId: string
  askId: string
  /** The holder of the latest claim, live or lapsed; absent when none was taken (or it was released). */
  holder?: string
  expiresAt?: number
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
  /** Who may answer and how many must approve (DESIGN §12); absent: anyone, once. */
  policy?: AskPolicy
}

/** What {@link AskStore.vote} writes. */
export interface NewVote {
  by: Responder
  /** Epoch milliseconds: the vote's time, and the settlement's when it completes the count. */
  at: number
  /** How many distinct approvals settle the ask (the ask's `policy.approvals`). */
  required: number
  /** The outcome the last approval settles the ask with; the store writes its `by`. */
  outcome: AskOutcome
}

/** The answer of {@link AskStore.vote}. */
export type VoteResult =
  /** Counted; the ask still waits for more. `given`: every approval so far, this one last. */
  | { status: 'counted'; given: Responder[] }
  /** This responder's approval was counted before; nothing was written. */
  | { status: 'already-voted'; given: Responder[] }
  /** The ask is settled: by this vote (`won`), or already, or now by its deadline. */
  | { status: 'settled'; record: AskRecord; won: boolean }

/** An event a writer appends with {@link AskStore.record}. */
export interface RecordedEvent {
  type: 'presented' | 'refused'
  /** Epoch milliseconds. */
  at: number
  by?: Responder
  detail?: Record<string, unknown>
}

/** What {@link AskStore.history} looks for: the asks matching every field given. */
export interface HistoryQuery {
  askId?: string
  key?: string
  agentId?: string
  /** At most this many asks, newest first. @default 50 */
  limit?: number
}

/** One event of an ask's record. */
export interface AskHistoryEvent {
  at: number
  type: 'admitted' | 'presented' | 'vote' | 'refused' | 'settled' | 'notified'
  by?: Responder
  detail?: Record<string, unknown>
}

/** The record of one ask (DESIGN §12): what was asked, when, what happened, and who answered. */
export interface AskHistory {
  askId: string
  key?: string
  agentId?: string
  questions: AskUserQuestionItem[]
  /** `'sha256:'` and the hex digest of the canonical questions: exactly what was asked. */
  digest: string
  startedAt: number
  deadline?: number
  settledAt?: number
  outcome?:
    | { status: 'answered'; answer: AskUserQuestionAnswer; by: Responder[] }
    | { status: 'rejected'; error: AskErrorData; by: Responder[] }
  /** In the order they happened. */
  events: AskHistoryEvent[]
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
