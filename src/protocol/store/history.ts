import { canonicalQuestions, isStorableId, readResponder } from '../../vocabulary/index.js'
import type { AskUserQuestionItem, Responder } from '../../vocabulary/index.js'
import { CorruptRowError } from './rows.js'
import type { AskHistory, AskHistoryEvent, AskRecord, HistoryQuery } from './types.js'

/*
 * The record of an ask (DESIGN §12), built the same way by every store from
 * what it keeps: the ask's row gives `admitted` and `settled`, the events
 * table the rest.
 */

/** The most asks one history query returns. */
export const MAX_HISTORY_LIMIT = 1_000
const DEFAULT_HISTORY_LIMIT = 50

/** `'sha256:'` and the hex digest of the canonical questions (the same for "the same questions" of DESIGN §10). */
export async function digestOf(questions: readonly AskUserQuestionItem[]): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalQuestions(questions))
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes))
  return `sha256:${Array.from(hash, (byte) => byte.toString(16).padStart(2, '0')).join('')}`
}

/** A history query, checked: `limit` defaults and is bounded; a field given must be a string. */
export function readHistoryQuery(
  query: HistoryQuery,
): Required<Pick<HistoryQuery, 'limit'>> & HistoryQuery {
  const { askId, key, agentId, limit = DEFAULT_HISTORY_LIMIT } = query
  for (const [field, value] of Object.entries({ askId, key, agentId })) {
    if (value !== undefined && typeof value !== 'string') {
      throw new TypeError(`history: ${field} must be a string`)
    }
    // No store holds such an id (asks refuse it), and Postgres could not even be asked for it.
    if (value !== undefined && !isStorableId(value)) {
      throw new TypeError(`history: ${field} must not hold a NUL or an unpaired surrogate`)
    }
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
    throw new TypeError(`history: limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}`)
  }
  return {
    limit,
    ...(askId === undefined ? {} : { askId }),
    ...(key === undefined ? {} : { key }),
    ...(agentId === undefined ? {} : { agentId }),
  }
}

/** Whether `record` matches every field `query` gives (the memory store's filter). */
export function matchesQuery(record: AskRecord, query: HistoryQuery): boolean {
  return (
    (query.askId === undefined || record.askId === query.askId) &&
    (query.key === undefined || record.key === query.key) &&
    (query.agentId === undefined || record.agentId === query.agentId)
  )
}

const EVENT_TYPES: ReadonlySet<unknown> = new Set<AskHistoryEvent['type']>([
  'presented',
  'vote',
  'refused',
  'notified',
])

/**
 * A stored event, read as untrusted: its `by` and `detail` come as JSON
 * text or parsed already; a row that is not an event (a time that is not a
 * number, an unknown type, text that is not JSON, a `by` that is not a
 * responder, a `detail` that is not an object) is a {@link CorruptRowError}.
 */
export function parseEventRow(row: {
  at: unknown
  type: unknown
  by?: unknown
  detail?: unknown
}): AskHistoryEvent {
  const at = typeof row.at === 'string' ? Number(row.at) : row.at
  if (typeof at !== 'number' || !Number.isFinite(at) || !EVENT_TYPES.has(row.type)) {
    throw new CorruptRowError('not an event of an ask')
  }
  const by = jsonOf(row.by, 'by')
  const detail = jsonOf(row.detail, 'detail')
  const event: AskHistoryEvent = { at, type: row.type as AskHistoryEvent['type'] }
  if (by !== null && by !== undefined) event.by = responderOf(by)
  if (detail !== null && detail !== undefined) {
    if (typeof detail !== 'object' || Array.isArray(detail)) {
      throw new CorruptRowError(`an event's detail is not an object`)
    }
    event.detail = detail as Record<string, unknown>
  }
  return event
}

function jsonOf(value: unknown, field: string): unknown {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value) as unknown
  } catch {
    throw new CorruptRowError(`an event's ${field} is not JSON`)
  }
}

function responderOf(value: unknown): Responder {
  try {
    return readResponder(value) as Responder
  } catch {
    throw new CorruptRowError(`an event's by is not a responder`)
  }
}

/**
 * The record of `ask`, from its row and the events kept about it (in any
 * order): `admitted` first, then the rest by time, `settled` among them at
 * its settlement (after the events of the same millisecond: the vote that
 * settled it, say), so a notification delivered after it comes after it.
 */
export async function historyOf(
  ask: AskRecord,
  kept: readonly AskHistoryEvent[],
): Promise<AskHistory> {
  const outcome = ask.outcome
  const by = outcome?.by ?? []
  const later = [...kept]
  if (outcome !== undefined) {
    const last = by[by.length - 1]
    later.push({
      at: ask.settledAt as number,
      type: 'settled',
      ...(last === undefined ? {} : { by: last }),
      detail:
        outcome.status === 'answered'
          ? { status: 'answered' }
          : { status: 'rejected', code: outcome.error.code },
    })
  }
  // A stable sort: events of one millisecond keep the order they were kept in.
  const events: AskHistoryEvent[] = [
    {
      at: ask.startedAt,
      type: 'admitted',
      ...(ask.agentId === undefined ? {} : { detail: { agentId: ask.agentId } }),
    },
    ...later.sort((a, b) => a.at - b.at),
  ]
  const history: AskHistory = {
    askId: ask.askId,
    questions: ask.questions,
    digest: await digestOf(ask.questions),
    startedAt: ask.startedAt,
    events,
  }
  if (ask.key !== undefined) history.key = ask.key
  if (ask.agentId !== undefined) history.agentId = ask.agentId
  if (ask.deadline !== undefined) history.deadline = ask.deadline
  if (ask.settledAt !== undefined) history.settledAt = ask.settledAt
  if (outcome !== undefined) {
    history.outcome =
      outcome.status === 'answered'
        ? { status: 'answered', answer: outcome.answer, by }
        : { status: 'rejected', error: outcome.error, by }
  }
  return history
}
