import { existsSync } from 'node:fs'
import type { AskStore } from '../protocol/index.js'
import { checkStoreChoice, openStore } from './stores.js'
import type { StoreChoice } from './stores.js'

/*
 * `askseam history` (DESIGN §12): the record of a store's asks, as a table a
 * person reads or as the JSON a script reads.
 */

/** The record of one ask, as `store.history` gives it. */
export type HistoryRecord = Awaited<ReturnType<AskStore['history']>>[number]
type HistoryQueryOf = Parameters<AskStore['history']>[0]
type HistoryResponder = NonNullable<HistoryRecord['events'][number]['by']>

/** Options of {@link runHistory}. */
export interface HistoryCommandOptions extends StoreChoice {
  query: HistoryQueryOf
  /** Print the `AskHistory[]` array as JSON instead of the table. */
  json: boolean
  write: (text: string) => void
  /** A store to read instead of the one the flags name (tests, embedders). */
  store?: AskStore
}

/** The store a history is read from: it must exist already, or there is no record to read. */
async function openRecordStore(choice: StoreChoice): Promise<AskStore> {
  checkStoreChoice(choice, 'askseam history reads a store')
  // Opening a SQLite file that is not there would create an empty one.
  if (choice.sqlitePath !== undefined && !existsSync(choice.sqlitePath)) {
    throw new Error(`no store at ${choice.sqlitePath}`)
  }
  return (await openStore(choice)) as AskStore
}

/**
 * `askseam history`: reads `store.history(query)` once and prints it. An
 * ask the query does not find is an empty result, not an error.
 */
export async function runHistory(options: HistoryCommandOptions): Promise<void> {
  const store = options.store ?? (await openRecordStore(options))
  try {
    const records = await store.history(options.query)
    options.write(options.json ? `${JSON.stringify(records, null, 2)}\n` : formatHistory(records))
  } finally {
    if (options.store === undefined) await store.close()
  }
}

// Model-written text goes to a terminal: no control character or escape sequence reaches it.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g

function plain(text: string): string {
  return text.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim()
}

function short(text: string, width: number): string {
  const flat = plain(text)
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`
}

/** An instant in UTC, to the second: `2026-12-03 16:36:53Z`. */
export function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')}Z`
}

function responderText(responder: HistoryResponder): string {
  const named = responder.name !== undefined && responder.name !== responder.id
  return `${plain(responder.id)}${named ? ` “${plain(responder.name ?? '')}”` : ''} (${plain(responder.via)})`
}

function outcomeText(record: HistoryRecord): string {
  const { outcome } = record
  if (outcome === undefined) {
    return record.deadline === undefined ? 'pending' : `pending until ${when(record.deadline)}`
  }
  if (outcome.status === 'rejected') {
    const reason = outcome.error.details?.reason
    return `${outcome.error.code}${typeof reason === 'string' ? ` (${plain(reason)})` : ''}`
  }
  const answers = outcome.answer.answers.map((item) => {
    const parts = [...item.selected, ...(item.custom === undefined ? [] : [`“${item.custom}”`])]
    return parts.length === 0 ? 'skipped' : parts.join(', ')
  })
  return `answered: ${answers.join('; ')}`
}

/** Every event in order, a repeat counted: `admitted, presented ×2, vote ×2, settled`. */
function eventsText(record: HistoryRecord): string {
  const runs: { type: string; count: number }[] = []
  for (const event of record.events) {
    const last = runs[runs.length - 1]
    if (last?.type === event.type) last.count += 1
    else runs.push({ type: event.type, count: 1 })
  }
  return runs.map(({ type, count }) => (count === 1 ? type : `${type} ×${count}`)).join(', ')
}

const COLUMNS = ['ASK', 'WHEN', 'QUESTIONS', 'OUTCOME', 'BY', 'EVENTS'] as const

/** One row per ask, newest first: id, when it was asked, what, how it ended, who answered and from where, what happened. */
function rowOf(record: HistoryRecord): string[] {
  const questions = record.questions.map((question) => question.header ?? question.question)
  const by = record.outcome?.by ?? []
  return [
    plain(record.askId),
    when(record.startedAt),
    short(questions.join(' · '), 40),
    short(outcomeText(record), 40),
    by.length === 0 ? '-' : by.map(responderText).join(', '),
    eventsText(record) || '-',
  ]
}

/**
 * The table a person reads: a header, then one aligned row per ask; "No asks
 * found." when there are none. Keys and agents, when an ask has them, follow
 * on an indented line under its row.
 */
export function formatHistory(records: readonly HistoryRecord[]): string {
  if (records.length === 0) return 'No asks found.\n'
  const rows = records.map(rowOf)
  const widths = COLUMNS.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  )
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd()
  const out = [line(COLUMNS)]
  records.forEach((record, index) => {
    out.push(line(rows[index] ?? []))
    const labels = [
      record.key === undefined ? '' : `key ${plain(record.key)}`,
      record.agentId === undefined ? '' : `agent ${plain(record.agentId)}`,
    ].filter((label) => label !== '')
    if (labels.length > 0) out.push(`  ${labels.join(' · ')}`)
  })
  return `${out.join('\n')}\n`
}
