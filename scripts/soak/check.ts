/**
 * The soak's verdict, from the rows, the audit trigger's record of every
 * settlement, and the askers' logs of what each caller got.
 */
import { isDeepStrictEqual } from 'node:util'
import type { AskRow, SettleEvent } from './database.js'
import { keyOf } from './plan.js'
import type { LoggedOutcome } from './plan.js'

/** Outcomes a key does not replay (DESIGN §10): the caller was told nothing about the human and asked again. */
const NOT_REPLAYED = new Set(['STORE_FAILED', 'NO_PROVIDER', 'SEAM_CLOSED'])

/**
 * The database's clock is read a moment before the trigger's: a write that
 * checked the deadline in time can be recorded a millisecond past it.
 */
const CLOCK_SLACK_MS = 5

export interface Verdict {
  /** Keys with no settled row and no explanation. */
  lost: string[]
  /** Keys with no row whose caller gave up after outcomes that are not replayed. */
  explained: string[]
  /** Asks the audit trigger saw settled more than once. */
  settledTwice: string[]
  /** Outcomes a caller got that differ from its key's row. */
  callerDisagrees: Array<{ key: string; caller: unknown; row: unknown }>
  /** Rows still pending. */
  stuck: string[]
  /** Rows answered with `settled_at` at or past their deadline. */
  lateAnswers: string[]
  /** Answers the audit trigger saw written (by the database's clock) past the deadline. */
  lateCommits: Array<{ askId: string; lateByMs: number }>
  /** How the keys' rows ended: `answered` or the error code. */
  endings: Map<string, number>
  /** Outcomes callers got that are not replayed, and that they asked again after. */
  retried: Map<string, number>
  rows: number
  settleEvents: number
}

const endingOf = (row: AskRow): string =>
  row.outcome === null
    ? 'pending'
    : row.outcome.status === 'answered'
      ? 'answered'
      : row.outcome.error.code

/** What a caller got, in the row's terms. */
function sameAsRow(line: LoggedOutcome, row: AskRow): boolean {
  const outcome = row.outcome
  if (outcome === null) return false
  if (line.status === 'answered') {
    return outcome.status === 'answered' && isDeepStrictEqual(line.answer, outcome.answer)
  }
  if (outcome.status !== 'rejected' || line.error === undefined) return false
  return (
    line.error.code === outcome.error.code &&
    line.error.message === outcome.error.message &&
    isDeepStrictEqual(line.error.details ?? {}, outcome.error.details ?? {})
  )
}

const count = (map: Map<string, number>, name: string) => map.set(name, (map.get(name) ?? 0) + 1)

export function judge(
  total: number,
  rows: AskRow[],
  settles: SettleEvent[],
  logged: LoggedOutcome[],
): Verdict {
  const byKey = new Map(rows.filter((row) => row.key !== null).map((row) => [row.key, row]))
  const linesByKey = new Map<string, LoggedOutcome[]>()
  for (const line of logged) linesByKey.set(line.key, [...(linesByKey.get(line.key) ?? []), line])
  const verdict: Verdict = {
    lost: [],
    explained: [],
    settledTwice: [],
    callerDisagrees: [],
    stuck: rows.filter((row) => row.state !== 'settled').map((row) => row.askId),
    lateAnswers: [],
    lateCommits: [],
    endings: new Map(),
    retried: new Map(),
    rows: rows.length,
    settleEvents: settles.length,
  }

  for (let index = 0; index < total; index += 1) {
    const key = keyOf(index)
    const lines = linesByKey.get(key) ?? []
    const row = byKey.get(key)
    const final = lines.filter((line) => line.final).at(-1)
    if (row === undefined) {
      const gaveUp = final?.error !== undefined && NOT_REPLAYED.has(final.error.code)
      ;(gaveUp ? verdict.explained : verdict.lost).push(key)
    } else {
      count(verdict.endings, endingOf(row))
      if (row.state === 'settled' && final === undefined) verdict.lost.push(key)
    }
    for (const line of lines) {
      if (line.error !== undefined && NOT_REPLAYED.has(line.error.code)) {
        count(verdict.retried, line.error.code)
        continue
      }
      if (row === undefined || !sameAsRow(line, row)) {
        verdict.callerDisagrees.push({ key, caller: line, row })
      }
    }
  }

  const settlesOf = new Map<string, number>()
  for (const event of settles) count(settlesOf, event.askId)
  for (const [askId, times] of settlesOf) if (times > 1) verdict.settledTwice.push(askId)

  for (const row of rows) {
    if (
      row.outcome?.status === 'answered' &&
      row.deadline !== null &&
      row.settledAt !== null &&
      row.settledAt >= row.deadline
    ) {
      verdict.lateAnswers.push(row.askId)
    }
  }
  for (const event of settles) {
    if (event.outcome.status !== 'answered' || event.deadline === null) continue
    const lateByMs = event.writtenAt - event.deadline
    if (lateByMs > CLOCK_SLACK_MS) verdict.lateCommits.push({ askId: event.askId, lateByMs })
  }
  return verdict
}

/** The verdict's violations, by name: the soak fails when any is above zero. */
export function violationsOf(verdict: Verdict): Array<[string, number]> {
  return [
    ['lost', verdict.lost.length],
    ['settled twice (audit trigger)', verdict.settledTwice.length],
    ['caller got another outcome than the row', verdict.callerDisagrees.length],
    ['stuck (pending after drain)', verdict.stuck.length],
    ['answered at/after deadline (settled_at)', verdict.lateAnswers.length],
    [`answer written >${CLOCK_SLACK_MS} ms after deadline (db clock)`, verdict.lateCommits.length],
  ]
}
