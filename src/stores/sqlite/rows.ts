import { CorruptRowError, STORE_SCHEMA_VERSION, parseAskRecord } from '../../protocol/internal.js'
import type { AskOutcome, AskRecord, NewAskRecord, SeamLease } from '../../protocol/internal.js'

/**
 * An `asks` row as SQLite hands it back, in {@link ASK_COLUMNS} order (raw
 * mode: no object per row to build in C++), and typed loosely, since anyone
 * may write the file.
 */
export type AskRow = readonly unknown[]

/** A `leases` row as SQLite hands it back. */
export interface LeaseRow {
  seam_id: unknown
  provider_active: unknown
  expires_at: unknown
  schema_version: unknown
}

/** The columns `SELECT`s and `RETURNING`s name, in one place: {@link AskRow} is in this order. */
export const ASK_COLUMNS =
  'ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline, state, outcome, settled_at, schema_version, trace_context, policy'

/**
 * What a sweep (`expireOverdue`, `endOrphans`) returns of each ask it ends:
 * {@link ASK_COLUMNS} up to `deadline`, then `schema_version`,
 * `trace_context` and `policy`. Not the
 * state, outcome and settled time: the sweep wrote them itself, so reading
 * them back (and parsing the outcome's JSON, per ask) would only repeat it.
 */
export const ENDED_COLUMNS =
  'ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline, schema_version, trace_context, policy'

const absent = (value: unknown): unknown => (value === null ? undefined : value)

function parseJson(text: unknown, column: string, askId: unknown): unknown {
  // Stryker disable next-line ConditionalExpression: SQLite hands NULL back as null, never undefined
  if (text === null || text === undefined) return undefined
  if (typeof text !== 'string')
    throw new CorruptRowError(`ask ${String(askId)}: ${column} is not text`)
  try {
    return JSON.parse(text)
  } catch {
    throw new CorruptRowError(`ask ${String(askId)}: ${column} is not valid JSON`)
  }
}

/**
 * A column whose value askseam may drop (the trace context): what it holds
 * if it is JSON, else `undefined` (never a corrupt row).
 */
function looseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Decodes one `asks` row; throws {@link CorruptRowError} for anything but a well-formed ask. */
export function decodeAsk(row: AskRow): AskRecord {
  const [askId, , , , , , , state, outcome, settledAt, schemaVersion, traceContext, policy] = row
  checkVersion(askId, schemaVersion)
  return parseAskRecord({
    ...ownFields(row),
    traceContext: looseJson(traceContext),
    // Never dropped: a policy that does not parse makes the row corrupt (parsePolicy).
    policy: parseJson(policy, 'policy', askId),
    state,
    outcome: parseJson(outcome, 'outcome', askId),
    settledAt: absent(settledAt),
  })
}

/** The columns an ask holds from its admission on, as `parseAskRecord` reads them. */
function ownFields(row: AskRow): Record<string, unknown> {
  const [askId, key, questions, agentId, ownerSeamId, startedAt, deadline] = row
  return {
    askId,
    key: absent(key),
    questions: parseJson(questions, 'questions', askId),
    agentId: absent(agentId),
    ownerSeamId,
    startedAt,
    deadline: absent(deadline),
  }
}

/**
 * Decodes one row a sweep ended ({@link ENDED_COLUMNS} order), settled at
 * `settledAt` with the outcome `outcomeOf` builds from the parsed ask, the
 * one the sweep's SQL wrote from the same columns. Throws
 * {@link CorruptRowError} as {@link decodeAsk} does.
 */
export function decodeEnded(
  row: AskRow,
  settledAt: number,
  outcomeOf: (ask: AskRecord) => AskOutcome,
): AskRecord {
  checkVersion(row[0], row[7])
  const record = parseAskRecord({
    ...ownFields(row),
    traceContext: looseJson(row[8]),
    policy: parseJson(row[9], 'policy', row[0]),
    state: 'pending',
  })
  record.state = 'settled'
  record.outcome = outcomeOf(record)
  record.settledAt = settledAt
  return record
}

function checkVersion(askId: unknown, schemaVersion: unknown): void {
  if (schemaVersion !== STORE_SCHEMA_VERSION) {
    throw new CorruptRowError(
      `ask ${String(askId)}: schema version ${String(schemaVersion)} is not ${STORE_SCHEMA_VERSION}`,
    )
  }
}

/** Decodes one `leases` row; throws {@link CorruptRowError} for a malformed one. */
export function decodeLease(row: LeaseRow): SeamLease {
  const { seam_id: seamId, provider_active: active, expires_at: expiresAt } = row
  if (
    row.schema_version !== STORE_SCHEMA_VERSION ||
    typeof seamId !== 'string' ||
    (active !== 0 && active !== 1) ||
    // Stryker disable next-line ConditionalExpression: Number.isFinite below is false for anything but a number
    typeof expiresAt !== 'number' ||
    !Number.isFinite(expiresAt)
  ) {
    throw new CorruptRowError(`lease ${String(seamId)} is malformed`)
  }
  return { seamId, providerActive: active === 1, expiresAt }
}

/** The parameters of the `INSERT` for a new ask (named, as the statement names them). */
export function encodeNewAsk(ask: NewAskRecord, revision: number): Record<string, unknown> {
  return {
    askId: ask.askId,
    key: ask.key ?? null,
    questions: JSON.stringify(ask.questions),
    agentId: ask.agentId ?? null,
    ownerSeamId: ask.ownerSeamId,
    startedAt: ask.startedAt,
    deadline: ask.deadline ?? null,
    traceContext: ask.traceContext === undefined ? null : JSON.stringify(ask.traceContext),
    policy: ask.policy === undefined ? null : JSON.stringify(ask.policy),
    revision,
    schemaVersion: STORE_SCHEMA_VERSION,
  }
}
