import {
  isErrorCode,
  readPolicy,
  readResponder,
  readTraceContext,
  validateAnswer,
  validateRequest,
} from '../../vocabulary/index.js'
import type {
  AskErrorData,
  AskOutcome,
  AskPolicy,
  Responder,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestionErrorCode,
} from '../../vocabulary/index.js'
import type {
  AdmitResult,
  AskRecord,
  NotificationEnding,
  NotificationEntry,
  SettleResult,
  VoteResult,
} from './types.js'

/*
 * Reading what a store hands back: the store is a trust boundary (DESIGN
 * §10), so every row is parsed, never trusted.
 */

/** A row that does not parse: the store gives `STORE_FAILED` for that ask. */
export class CorruptRowError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CorruptRowError'
  }
}

/**
 * A durable store's default `onCorruptRow`: a process warning named
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
 * Parses each row of a call that lists many (pending asks, leases,
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
 * Hands `change` to each of `listeners`, as a store's change feed
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
export function parseOutcome(value: unknown): AskOutcome {
  if (!isDict(value)) throw new CorruptRowError('outcome is not an object')
  const by = value.by === undefined ? {} : { by: parseResponders(value.by) }
  if (value.status === 'answered') {
    const answer = value.answer
    if (!isDict(answer) || !Array.isArray(answer.answers)) {
      throw new CorruptRowError('an answered outcome has no answers array')
    }
    return { status: 'answered', answer: answer as unknown as AskUserQuestionAnswer, ...by }
  }
  if (value.status === 'rejected') {
    const error = value.error
    if (
      !isDict(error) ||
      !isErrorCode(error.code) ||
      typeof error.message !== 'string' ||
      !(error.details === undefined || isDict(error.details))
    ) {
      throw new CorruptRowError('a rejected outcome has no valid error')
    }
    const stored: AskErrorData = {
      code: error.code as UserQuestionErrorCode,
      message: error.message,
    }
    if (error.details !== undefined) stored.details = error.details as Dict
    return { status: 'rejected', error: stored, ...by }
  }
  throw new CorruptRowError('outcome status is neither answered nor rejected')
}

/** Who settled an outcome, as kept: a list of responders, or a {@link CorruptRowError}. */
export function parseResponders(value: unknown): Responder[] {
  if (!Array.isArray(value)) throw new CorruptRowError('outcome.by is not a list')
  try {
    return value.map((each) => readResponder(each) as Responder)
  } catch {
    throw new CorruptRowError('outcome.by holds something that is not a responder')
  }
}

/**
 * An ask's policy as kept: what `readPolicy` accepts, or a
 * {@link CorruptRowError}. A policy that does not parse is never dropped:
 * dropping it would let anyone answer.
 */
export function parsePolicy(
  value: unknown,
  questions: AskUserQuestionItem[],
): AskPolicy | undefined {
  if (value === undefined || value === null) return undefined
  try {
    if (!isDict(value)) throw new Error('not an object')
    return readPolicy(value.answerers, value.approvals, questions)
  } catch {
    throw new CorruptRowError('policy is not a policy')
  }
}

/**
 * Parses an ask read from a store, with its `questions` and `outcome`
 * already decoded from JSON; throws {@link CorruptRowError} when any field
 * is missing or of the wrong type. The questions are validated again, and an
 * answer against them, as the seam validated them before it wrote them: a row
 * edited by hand reaches neither a provider nor a caller.
 */
export function parseAskRecord(value: unknown): AskRecord {
  if (!isDict(value)) throw new CorruptRowError('row is not an object')
  const { askId, key, questions, agentId, ownerSeamId, startedAt, deadline, state, settledAt } =
    value
  // Telemetry is never a reason to refuse an ask: a malformed trace context is dropped.
  const traceContext = readTraceContext(value.traceContext)
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
  try {
    // A check, not a copy: the row's questions are kept (a memory store's are the seam's own).
    validateRequest({ questions })
  } catch (error: unknown) {
    fail(`questions are not valid questions: ${(error as Error).message}`)
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
  if (traceContext !== undefined) record.traceContext = traceContext
  const policy = parsePolicy(value.policy, record.questions)
  if (policy !== undefined) record.policy = policy
  if (state === 'settled') {
    record.state = 'settled'
    record.outcome = parseOutcome(value.outcome)
    if (record.outcome.status === 'answered') {
      try {
        record.outcome.answer = validateAnswer(record.questions, record.outcome.answer)
      } catch (error: unknown) {
        fail(`the answer does not answer its questions: ${(error as Error).message}`)
      }
    }
    if (settledAt === undefined) fail('a settled ask has no settledAt')
    record.settledAt = settledAt as number
  } else if (state !== 'pending') {
    fail('state is neither pending nor settled')
  }
  return record
}

/**
 * A store's answer to an admission, read as untrusted: a held ask
 * is parsed like any row; anything else throws {@link CorruptRowError}.
 */
export function readAdmission(result: unknown): AdmitResult {
  const status = (result as { status?: unknown } | null | undefined)?.status
  // The seam reads nothing of an admitted record: it wrote it.
  if (status === 'admitted') return result as AdmitResult
  if (status === 'existing') {
    return { status, record: parseAskRecord((result as { record?: unknown }).record) }
  }
  throw new CorruptRowError('the store answered an admission with neither admitted nor existing')
}

/**
 * A store's answer to a settlement, read as untrusted: `undefined`
 * (no such ask) throws, as does a record that does not parse or is not
 * settled.
 */
export function readSettlement(askId: string, result: unknown): SettleResult {
  if (result === undefined) throw new CorruptRowError(`ask ${askId} is not in the store`)
  const record = parseAskRecord((result as { record?: unknown } | null)?.record)
  if (record.outcome === undefined) {
    throw new CorruptRowError(`the store does not hold ask ${askId} as settled`)
  }
  return { record, won: (result as { won?: unknown }).won === true }
}

/**
 * A store's answer to a vote, read as untrusted: `undefined` (no such ask),
 * an unknown status, a record that is not settled or a list that is not of
 * responders throws {@link CorruptRowError}.
 */
export function readVote(askId: string, result: unknown): VoteResult {
  if (result === undefined) throw new CorruptRowError(`ask ${askId} is not in the store`)
  const { status, given } = (result ?? {}) as { status?: unknown; given?: unknown }
  if (status === 'counted' || status === 'already-voted') {
    return { status, given: parseResponders(given) }
  }
  if (status === 'settled') return { status, ...readSettlement(askId, result) }
  throw new CorruptRowError(`the store answered a vote on ask ${askId} with an unknown status`)
}

const NOTIFICATION_ENDINGS: ReadonlySet<unknown> = new Set<NotificationEnding>([
  'delivered',
  'gone',
  'given-up',
  'dropped',
])

/**
 * A row of the notification ledger, by the column names every dialect's
 * table uses, as the ledger's types say, or a {@link CorruptRowError}.
 * `expires_at` may come as a number or as a bigint's text.
 */
export function parseNotificationRow(row: {
  event_id: unknown
  ask_id: unknown
  holder: unknown
  expires_at: unknown
  ending: unknown
}): NotificationEntry & { ending?: NotificationEnding } {
  const { event_id: eventId, ask_id: askId, holder, ending } = row
  if (typeof eventId !== 'string' || typeof askId !== 'string') {
    throw new CorruptRowError(`notification ${String(eventId)}: no event or ask id`)
  }
  const raw = row.expires_at
  const expiresAt =
    raw === null || raw === undefined
      ? undefined
      : typeof raw === 'number' || typeof raw === 'string'
        ? Number(raw)
        : Number.NaN
  if (
    (holder !== null && typeof holder !== 'string') ||
    (expiresAt !== undefined && !Number.isSafeInteger(expiresAt)) ||
    (ending !== null && !NOTIFICATION_ENDINGS.has(ending))
  ) {
    throw new CorruptRowError(`notification ${eventId}: not a row of the notification ledger`)
  }
  return {
    eventId,
    askId,
    ...(holder === null ? {} : { holder }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(ending === null ? {} : { ending: ending as NotificationEnding }),
  }
}
