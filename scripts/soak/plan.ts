/**
 * What every process of the soak agrees on: the keys, their deadlines and
 * questions, the options a child is started with, and the asker's log.
 */
import { existsSync, readFileSync } from 'node:fs'
import type { AskUserQuestionAnswer, AskUserQuestionItem } from '../../src/protocol/index.js'

/** What an asker is told. */
export interface AskerOptions {
  /** This asker's number: it owns the keys whose index modulo `askers` is it. */
  asker: number
  askers: number
  /** Keys in the whole soak. */
  total: number
  /** Asks this asker keeps in flight. */
  concurrency: number
  /** Where it appends its outcomes, one JSON line each. */
  log: string
  /** The SQLite store's busy timeout. */
  busyTimeoutMs: number
}

/** What an answerer is told. */
export interface AnswererOptions {
  name: string
  busyTimeoutMs: number
}

/** One line of an asker's log: what its caller got for a key. */
export interface LoggedOutcome {
  key: string
  pid: number
  /** Epoch milliseconds when the caller got it. */
  at: number
  /** false: an outcome that says nothing about the human (STORE_FAILED): the key is asked again. */
  final: boolean
  status: 'answered' | 'rejected'
  answer?: AskUserQuestionAnswer
  error?: { code: string; message: string; details?: Record<string, unknown> }
}

/** Deadlines of the soak: every tenth key is short, so some time out. */
export const SHORT_TIMEOUT_MS = 1_500
export const LONG_TIMEOUT_MS = 60_000
export const keyOf = (index: number): string => `soak-${index}`
export const timeoutOf = (index: number): number =>
  index % 10 === 3 ? SHORT_TIMEOUT_MS : LONG_TIMEOUT_MS

/** The questions of a key: the key is in the detail, so a row names its key even after giving the key up. */
export const questionsOf = (key: string): AskUserQuestionItem[] => [
  {
    id: 'db',
    question: 'Which database?',
    detail: `soak key ${key}`,
    options: [{ label: 'Postgres' }, { label: 'SQLite' }],
  },
]

/** Every outcome an asker logged, oldest first. A line torn by a SIGKILL is skipped. */
export function readLog(path: string): LoggedOutcome[] {
  if (!existsSync(path)) return []
  const outcomes: LoggedOutcome[] = []
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    try {
      outcomes.push(JSON.parse(line) as LoggedOutcome)
    } catch {
      // The half-written line of a process killed mid-append: that key is asked again.
    }
  }
  return outcomes
}
