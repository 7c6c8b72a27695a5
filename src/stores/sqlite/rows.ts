import { CorruptRowError, STORE_SCHEMA_VERSION, parseAskRecord } from '../../protocol/index.js'
import type { AskRecord, NewAskRecord, SeamLease } from '../../protocol/index.js'

/** An `asks` row as SQLite hands it back: typed loosely, since anyone may write the file. */
export interface AskRow {
  ask_id: unknown
  ask_key: unknown
  questions: unknown
  agent_id: unknown
  owner_seam_id: unknown
  started_at: unknown
  deadline: unknown
  state: unknown
  outcome: unknown
  settled_at: unknown
  revision: unknown
  schema_version: unknown
}

/** A `leases` row as SQLite hands it back. */
export interface LeaseRow {
  seam_id: unknown
  provider_active: unknown
  expires_at: unknown
  schema_version: unknown
}

/** The columns `SELECT`s and `RETURNING`s name, in one place. */
export const ASK_COLUMNS =
  'ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline, state, outcome, settled_at, revision, schema_version'

const absent = (value: unknown): unknown => (value === null ? undefined : value)

function parseJson(text: unknown, column: string, askId: unknown): unknown {
  if (text === null || text === undefined) return undefined
  if (typeof text !== 'string')
    throw new CorruptRowError(`ask ${String(askId)}: ${column} is not text`)
  try {
    return JSON.parse(text)
  } catch {
    throw new CorruptRowError(`ask ${String(askId)}: ${column} is not valid JSON`)
  }
}

/** Decodes one `asks` row; throws {@link CorruptRowError} for anything but a well-formed ask. */
export function decodeAsk(row: AskRow): AskRecord {
  if (row.schema_version !== STORE_SCHEMA_VERSION) {
    throw new CorruptRowError(
      `ask ${String(row.ask_id)}: schema version ${String(row.schema_version)} is not ${STORE_SCHEMA_VERSION}`,
    )
  }
  return parseAskRecord({
    askId: row.ask_id,
    key: absent(row.ask_key),
    questions: parseJson(row.questions, 'questions', row.ask_id),
    agentId: absent(row.agent_id),
    ownerSeamId: row.owner_seam_id,
    startedAt: row.started_at,
    deadline: absent(row.deadline),
    state: row.state,
    outcome: parseJson(row.outcome, 'outcome', row.ask_id),
    settledAt: absent(row.settled_at),
  })
}

/** Decodes one `leases` row; throws {@link CorruptRowError} for a malformed one. */
export function decodeLease(row: LeaseRow): SeamLease {
  const { seam_id: seamId, provider_active: active, expires_at: expiresAt } = row
  if (
    row.schema_version !== STORE_SCHEMA_VERSION ||
    typeof seamId !== 'string' ||
    (active !== 0 && active !== 1) ||
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
    revision,
    schemaVersion: STORE_SCHEMA_VERSION,
  }
}
