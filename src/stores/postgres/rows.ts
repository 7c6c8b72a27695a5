import { CorruptRowError, STORE_SCHEMA_VERSION, parseAskRecord } from '../../protocol/internal.js'
import type { AskOutcome, AskRecord, SeamLease } from '../../protocol/internal.js'

/**
 * Every column comes back as the server's text, whatever type parsers the
 * process (or a pool handed in) installed: the store converts and checks each
 * value itself, so a row is parsed exactly one way.
 */
export const RAW_TEXT = { getTypeParser: () => (value: string) => value }

/** An ask row as it arrives under {@link RAW_TEXT}. */
export interface AskRow {
  ask_id: string | null
  ask_key: string | null
  questions: string | null
  agent_id: string | null
  owner_seam_id: string | null
  started_at: string | null
  deadline: string | null
  state: string | null
  outcome: string | null
  settled_at: string | null
  schema_version: string | null
  revision: string | null
  trace_context: string | null
  policy: string | null
}

/** What an ask is from its admission on, whatever becomes of it. */
const OWN_COLUMNS = [
  'ask_id',
  'ask_key',
  'questions',
  'agent_id',
  'owner_seam_id',
  'started_at',
  'deadline',
  'trace_context',
  'policy',
]

/** The columns of {@link AskRow}, for a `SELECT` or a `RETURNING` (optionally qualified). */
export function askColumns(table = ''): string {
  const prefix = table === '' ? '' : `${table}.`
  return [...OWN_COLUMNS, 'state', 'outcome', 'settled_at', 'schema_version', 'revision']
    .map((column) => prefix + column)
    .join(', ')
}

/**
 * The NOTIFY payload for a write to one ask: `kind:askId`. A payload must stay
 * under 8000 bytes, so an id too long to fit asks the listeners to resync.
 */
export function askNotice(kind: 'admitted' | 'settled', idColumn = 'ask_id'): string {
  return `CASE WHEN octet_length(${idColumn}) <= 7000 THEN '${kind}:' || ${idColumn} ELSE 'resync' END`
}

/** Parses an ask row; throws {@link CorruptRowError} for a row the store cannot trust. */
export function toAskRecord(row: AskRow): AskRecord {
  // Stryker disable next-line StringLiteral: ask_id is the primary key, never NULL
  const askId = row.ask_id ?? ''
  const fail = (what: string): never => {
    throw new CorruptRowError(`ask ${askId}: ${what}`)
  }
  if (row.schema_version !== String(STORE_SCHEMA_VERSION)) {
    // Stryker disable next-line StringLiteral: schema_version is NOT NULL
    fail(`schema version ${row.schema_version ?? 'missing'}, not ${STORE_SCHEMA_VERSION}`)
  }
  const json = (text: string | null, what: string): unknown => {
    if (text === null) return undefined
    try {
      return JSON.parse(text) as unknown
      // Stryker disable next-line BlockStatement: a json column holds valid JSON only; this guards a server that lies
    } catch {
      // Stryker disable next-line StringLiteral: as above
      return fail(`${what} is not JSON`)
    }
  }
  const time = (text: string | null, what: string): number | undefined => {
    if (text === null) return undefined
    const value = Number(text)
    return Number.isSafeInteger(value) ? value : fail(`${what} is not a time`)
  }
  return parseAskRecord({
    askId,
    key: row.ask_key ?? undefined,
    questions: json(row.questions, 'questions'),
    agentId: row.agent_id ?? undefined,
    ownerSeamId: row.owner_seam_id ?? undefined,
    startedAt: time(row.started_at, 'startedAt'),
    deadline: time(row.deadline, 'deadline'),
    // Dropped, not a corrupt row, when it is not a trace context (parseAskRecord).
    traceContext: row.trace_context === null ? undefined : looseJson(row.trace_context),
    // Never dropped: a policy that does not parse makes the row corrupt (parsePolicy).
    policy: json(row.policy, 'policy'),
    state: row.state,
    outcome: json(row.outcome, 'outcome'),
    settledAt: time(row.settled_at, 'settledAt'),
  })
}

function looseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
    // Stryker disable next-line BlockStatement: a json column holds valid JSON only; this guards a server that lies
  } catch {
    return undefined
  }
}

/**
 * What a sweep (`expireOverdue`, `endOrphans`) returns of each ask it ends,
 * qualified by `table`: the ask's own columns, not the state, outcome and
 * settled time the sweep itself wrote (reading them back, and parsing the
 * outcome's JSON per ask, would only repeat it).
 */
export function sweptColumns(table: string): string {
  return [...OWN_COLUMNS, 'schema_version'].map((column) => `${table}.${column}`).join(', ')
}

/** A row of {@link sweptColumns}. */
export type SweptRow = Pick<
  AskRow,
  | 'ask_id'
  | 'ask_key'
  | 'questions'
  | 'agent_id'
  | 'owner_seam_id'
  | 'started_at'
  | 'deadline'
  | 'schema_version'
  | 'trace_context'
  | 'policy'
>

/**
 * Parses a row a sweep ended, settled at `settledAt` with the outcome
 * `outcomeOf` builds from the parsed ask: the one the sweep's SQL wrote from
 * the same columns. Throws {@link CorruptRowError} as {@link toAskRecord} does.
 */
export function toSweptRecord(
  row: SweptRow,
  settledAt: number,
  outcomeOf: (ask: AskRecord) => AskOutcome,
): AskRecord {
  const record = toAskRecord({
    ...row,
    state: 'pending',
    outcome: null,
    settled_at: null,
    revision: null,
  })
  record.state = 'settled'
  record.outcome = outcomeOf(record)
  record.settledAt = settledAt
  return record
}

/** The revision of an ask row (for the change feed's bookkeeping). */
export function revisionOf(row: AskRow): number {
  return Number(row.revision ?? 0)
}

/** A lease row as it arrives under {@link RAW_TEXT}. */
export interface LeaseRow {
  seam_id: string | null
  provider_active: string | null
  expires_at: string | null
  schema_version: string | null
}

/** Parses a lease row; throws {@link CorruptRowError} for one it cannot trust. */
export function toSeamLease(row: LeaseRow): SeamLease {
  const expiresAt = Number(row.expires_at)
  if (
    // Stryker disable next-line ConditionalExpression: seam_id is the primary key, never NULL
    row.seam_id === null ||
    row.schema_version !== String(STORE_SCHEMA_VERSION) ||
    // Stryker disable next-line ConditionalExpression: a boolean NOT NULL column reads 't' or 'f'
    (row.provider_active !== 't' && row.provider_active !== 'f') ||
    !Number.isSafeInteger(expiresAt)
  ) {
    // Stryker disable next-line StringLiteral: seam_id is the primary key, never NULL
    throw new CorruptRowError(`lease ${row.seam_id ?? ''}: not a lease of this schema version`)
  }
  return { seamId: row.seam_id, providerActive: row.provider_active === 't', expiresAt }
}

/** The ask of the first of `rows`, if any; throws {@link CorruptRowError} for one it cannot trust. */
export function firstAsk(rows: AskRow[]): AskRecord | undefined {
  return rows[0] === undefined ? undefined : toAskRecord(rows[0])
}
