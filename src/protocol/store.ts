import { UserQuestionError, UserQuestionErrorCodes } from '../vocabulary/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestionErrorCode,
} from '../vocabulary/index.js'

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
   * `true` when every seam sharing the store lives in this process (the
   * memory store): a seam cannot die without the store, so its lease never
   * lapses by itself and the seam keeps no renewal timer. Added for the seam;
   * a durable store leaves it out. @default false
   */
  readonly processLocal?: boolean
  /**
   * Writes a new pending ask. With a `key`, the write is atomic with the
   * look-up: when the store already holds an ask with that key whose outcome
   * is still pending or is replayed ({@link isReplayedOutcome}), nothing is
   * written and that ask comes back as `existing`; an ask with the key whose
   * outcome is not replayed gives its key up to the new one.
   * The caller compares questions: the store does not.
   */
  admit(ask: NewAskRecord): Promise<AdmitResult>
  /**
   * {@link AskStore.admit} done synchronously, for a store that can (the
   * memory store): throws where `admit` would reject. With it a seam admits
   * and presents an in-process ask in the same turn. Added for the seam; a
   * durable store leaves it out.
   */
  admitNow?(ask: NewAskRecord): AdmitResult
  /**
   * The one conditional write: settles `askId` with `outcome` if, and only
   * if, it is still pending. Resolves with the ask as the store now holds it,
   * whoever won (`record.outcome` is the committed outcome), and whether this
   * call's write is the one committed; or `undefined` for an ask the store
   * does not hold.
   */
  settle(
    askId: string,
    outcome: StoredOutcome,
    settledAt: number,
  ): Promise<SettleResult | undefined>
  /** The ask with this id, pending or settled. */
  get(askId: string): Promise<AskRecord | undefined>
  /** Every pending ask, oldest first (by `startedAt`, then `askId`). */
  pending(): Promise<AskRecord[]>
  /**
   * Ends, in one write, every pending ask whose deadline is at or before
   * `now` with {@link timeoutOutcome}; resolves with the asks it ended.
   * Safe to run from every seam at once: each ask is ended by one of them.
   */
  expireOverdue(now: number): Promise<AskRecord[]>
  /**
   * Ends every pending keyless ask whose owner holds no live lease at `now`
   * with {@link ownerGoneOutcome}; resolves with the asks it ended. Keyed asks
   * of a dead owner stay pending: a later `ask` with the key resumes them.
   * Also deletes the leases that expired {@link LEASE_RETENTION_MS} or more
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

/** A settlement as stored: an answer, or the error's data (never an `Error` object). */
export type StoredOutcome =
  { status: 'answered'; answer: AskUserQuestionAnswer } | { status: 'rejected'; error: StoredError }

/** A `UserQuestionError` as data: enough to rebuild one with the same code, message and details. */
export interface StoredError {
  code: UserQuestionErrorCode
  message: string
  details?: Record<string, unknown>
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
}

/** An ask as the store holds it. */
export interface AskRecord extends NewAskRecord {
  state: 'pending' | 'settled'
  /** Present exactly when `state` is `settled`. */
  outcome?: StoredOutcome
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

/** The message of the outcome {@link AskStore.expireOverdue} writes. */
export const TIMEOUT_MESSAGE = 'nobody answered before the deadline'
/** The message of the outcome {@link AskStore.endOrphans} writes. */
export const OWNER_GONE_MESSAGE = 'the process that asked is gone'

/** The outcome of an ask whose deadline passed: `details.deadline` is the original one. */
export function timeoutOutcome(ask: Pick<AskRecord, 'deadline' | 'startedAt'>): StoredOutcome {
  return {
    status: 'rejected',
    error: {
      code: 'ASK_TIMEOUT',
      message: TIMEOUT_MESSAGE,
      details: { deadline: ask.deadline, startedAt: ask.startedAt },
    },
  }
}

/** The outcome of a keyless ask whose process died. */
export function ownerGoneOutcome(): StoredOutcome {
  return {
    status: 'rejected',
    error: { code: 'ASK_ABORTED', message: OWNER_GONE_MESSAGE, details: { reason: 'owner-gone' } },
  }
}

/**
 * Outcomes the human or the clock decided, replayed to every later `ask`
 * with the key. The others (the caller's own abort, `NO_PROVIDER`,
 * `STORE_FAILED`, a closed seam, a dead owner) say nothing about the human:
 * the next `ask` with that key starts a new ask.
 */
export function isReplayedOutcome(outcome: StoredOutcome): boolean {
  if (outcome.status === 'answered') return true
  return REPLAYED_CODES.has(outcome.error.code)
}

const REPLAYED_CODES: ReadonlySet<UserQuestionErrorCode> = new Set([
  'ASK_CANCELLED',
  'ASK_TIMEOUT',
  'BAD_ANSWER',
  'PROVIDER_FAILED',
])

/** The stored form of an error. */
export function storeError(error: UserQuestionError): StoredError {
  return error.details === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, details: { ...error.details } }
}

/** The error a stored rejection stands for: same code, message and details. */
export function restoreError(error: StoredError): UserQuestionError {
  return new UserQuestionError(
    error.message,
    error.code,
    error.details === undefined ? {} : { details: error.details },
  )
}

/** A row that does not parse: the store gives `STORE_FAILED` for that ask. */
export class CorruptRowError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CorruptRowError'
  }
}

/**
 * @internal A durable store's default `onCorruptRow`: a process warning named
 * `AskseamStore` with code `ASKSEAM_CORRUPT_ROW`, once per distinct fault, so a
 * bad row read at every poll does not flood the log.
 */
export function warnCorruptRowOnce(store: string): (error: CorruptRowError) => void {
  const said = new Set<string>()
  return (error) => {
    if (said.has(error.message)) return
    said.add(error.message)
    process.emitWarning(`askseam/${store} skipped a corrupt row: ${error.message}`, {
      type: 'AskseamStore',
      code: 'ASKSEAM_CORRUPT_ROW',
    })
  }
}

/**
 * @internal Parses each row of a call that lists many (pending asks, leases,
 * changes): a row whose `parse` throws {@link CorruptRowError} is skipped and
 * told to `onCorrupt`, not fatal to the list; any other error propagates.
 * Shared by askseam's stores; not public API, left out of the declarations.
 */
export function parseRows<TRow, TRecord>(
  rows: readonly TRow[],
  parse: (row: TRow) => TRecord,
  onCorrupt: (error: CorruptRowError) => void,
): TRecord[] {
  const records: TRecord[] = []
  for (const row of rows) {
    try {
      records.push(parse(row))
    } catch (error: unknown) {
      if (!(error instanceof CorruptRowError)) throw error
      onCorrupt(error)
    }
  }
  return records
}

/**
 * @internal Hands `change` to each of `listeners`, as a store's change feed
 * does: one listener's throw neither starves the others nor stops the feed,
 * and still surfaces, as an uncaught error in a microtask. Shared by
 * askseam's stores; not public API, left out of the declarations.
 */
export function notifyEach<TChange>(
  listeners: Iterable<(change: TChange) => void>,
  change: TChange,
): void {
  for (const listener of [...listeners]) {
    try {
      listener(change)
    } catch (error: unknown) {
      queueMicrotask(() => {
        throw error
      })
    }
  }
}

type Dict = Record<string, unknown>
const isDict = (value: unknown): value is Dict =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const optionalNumber = (value: unknown): value is number | undefined =>
  value === undefined || (typeof value === 'number' && Number.isFinite(value))
const optionalString = (value: unknown): value is string | undefined =>
  value === undefined || typeof value === 'string'

/**
 * Parses an outcome read from a store (e.g. a JSON column); throws
 * {@link CorruptRowError} when it is not one.
 */
export function parseStoredOutcome(value: unknown): StoredOutcome {
  if (!isDict(value)) throw new CorruptRowError('outcome is not an object')
  if (value.status === 'answered') {
    const answer = value.answer
    if (!isDict(answer) || !Array.isArray(answer.answers)) {
      throw new CorruptRowError('an answered outcome has no answers array')
    }
    return { status: 'answered', answer: answer as unknown as AskUserQuestionAnswer }
  }
  if (value.status === 'rejected') {
    const error = value.error
    if (
      !isDict(error) ||
      typeof error.code !== 'string' ||
      !Object.hasOwn(UserQuestionErrorCodes, error.code) ||
      typeof error.message !== 'string' ||
      !(error.details === undefined || isDict(error.details))
    ) {
      throw new CorruptRowError('a rejected outcome has no valid error')
    }
    const stored: StoredError = {
      code: error.code as UserQuestionErrorCode,
      message: error.message,
    }
    if (error.details !== undefined) stored.details = error.details as Dict
    return { status: 'rejected', error: stored }
  }
  throw new CorruptRowError('outcome status is neither answered nor rejected')
}

/**
 * Parses an ask read from a store, with its `questions` and `outcome`
 * already decoded from JSON; throws {@link CorruptRowError} when any field
 * is missing or of the wrong type. The questions are checked for shape only:
 * they were validated at admission.
 */
export function parseAskRecord(value: unknown): AskRecord {
  if (!isDict(value)) throw new CorruptRowError('row is not an object')
  const { askId, key, questions, agentId, ownerSeamId, startedAt, deadline, state, settledAt } =
    value
  if (typeof askId !== 'string' || askId === '') throw new CorruptRowError('row has no askId')
  const fail = (what: string): never => {
    throw new CorruptRowError(`ask ${askId}: ${what}`)
  }
  if (!optionalString(key)) fail('key is not a string')
  if (!optionalString(agentId)) fail('agentId is not a string')
  if (typeof ownerSeamId !== 'string') fail('ownerSeamId is not a string')
  if (typeof startedAt !== 'number' || !Number.isFinite(startedAt)) fail('startedAt is not a time')
  if (!optionalNumber(deadline)) fail('deadline is not a time')
  if (!optionalNumber(settledAt)) fail('settledAt is not a time')
  if (
    !Array.isArray(questions) ||
    questions.length === 0 ||
    !questions.every((q) => isDict(q) && typeof q.id === 'string' && typeof q.question === 'string')
  ) {
    fail('questions are not a list of questions')
  }
  const record: AskRecord = {
    askId,
    questions: questions as AskUserQuestionItem[],
    ownerSeamId: ownerSeamId as string,
    startedAt: startedAt as number,
    state: 'pending',
  }
  if (key !== undefined) record.key = key as string
  if (agentId !== undefined) record.agentId = agentId as string
  if (deadline !== undefined) record.deadline = deadline as number
  if (state === 'settled') {
    record.state = 'settled'
    record.outcome = parseStoredOutcome(value.outcome)
    if (settledAt === undefined) fail('a settled ask has no settledAt')
    record.settledAt = settledAt as number
  } else if (state !== 'pending') {
    fail('state is neither pending nor settled')
  }
  return record
}
