/**
 * One process of the durable-sqlite end-to-end tests: a seam on a shared
 * SQLite file that may ask (with a key), present asks through a provider, or
 * both. Driven by durable-sqlite.test.ts:
 *
 *   node --import tsx durable-sqlite-child.ts <path> '<json Config>'
 *
 * Prints one JSON line per event; reads "go" on stdin to let an
 * `answer-on-go` provider answer.
 */
import { createInterface } from 'node:readline'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionAnswer, AskUserQuestionItem } from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'

interface ChildConfig {
  /** Ask once, with this key (absent: no ask). */
  key?: string
  ask?: boolean
  timeoutMs?: number
  waitForProviderMs?: number
  /**
   * hold: never answer; answer-now: answer at once; answer-on-go: answer on
   * "go"; count: never answer, print once `expect` asks were presented.
   */
  provider?: 'hold' | 'answer-now' | 'answer-on-go' | 'count'
  /** The typed answer this process's provider gives. */
  custom?: string
  expect?: number
}

const QUESTIONS: AskUserQuestionItem[] = [
  {
    id: 'db',
    question: 'Which database?',
    options: [{ label: 'Postgres' }, { label: 'SQLite' }],
  },
]

const [path, json] = process.argv.slice(2) as [string, string]
const config = JSON.parse(json) as ChildConfig
const say = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`)
}
const errorData = (error: unknown): Record<string, unknown> =>
  error instanceof UserQuestionError
    ? { code: error.code, message: error.message, details: error.details }
    : { code: 'NOT_A_USER_QUESTION_ERROR', message: String(error) }

const go = new Promise<void>((resolve) => {
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line === 'go') resolve()
  })
})
const answer: AskUserQuestionAnswer = {
  answers: [
    config.custom === undefined
      ? { id: 'db', selected: ['SQLite'] }
      : { id: 'db', selected: [], custom: config.custom },
  ],
}

const store = createSqliteStore({ path })
const options = {
  store,
  ...(config.waitForProviderMs === undefined
    ? {}
    : { waitForProviderMs: config.waitForProviderMs }),
}
const seam = createUserQuestions(options)
const started = Date.now()
let presented = 0

if (config.provider !== undefined) {
  const mode = config.provider
  seam.registerProvider({
    async ask(request) {
      presented += 1
      if (mode !== 'count') say({ event: 'presented', askId: request.askId })
      else if (presented === config.expect) {
        say({ event: 'count', presented, ms: Date.now() - started })
      }
      void request.settlement?.then((settlement) => {
        const error = 'error' in settlement ? errorData(settlement.error) : {}
        say({ event: 'settlement', askId: request.askId, status: settlement.status, ...error })
      })
      request.signal.addEventListener('abort', () => {
        say({ event: 'aborted', askId: request.askId, ...errorData(request.signal.reason) })
      })
      if (mode === 'answer-now') return answer
      if (mode === 'answer-on-go') {
        await go
        return answer
      }
      return new Promise<never>(() => undefined)
    },
  })
}
say({ event: 'ready' })

if (config.ask === true) {
  const request = {
    questions: QUESTIONS,
    ...(config.key === undefined ? {} : { key: config.key }),
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
  }
  seam.ask(request).then(
    (result) => say({ event: 'resolved', answer: result }),
    (error: unknown) => say({ event: 'rejected', ...errorData(error) }),
  )
  // Admission is a store write: report the askId once the seam holds the ask.
  const report = setInterval(() => {
    const mine = seam.pending()
    if (mine.length > 0) {
      clearInterval(report)
      say({ event: 'asking', askIds: mine.map((ask) => ask.askId) })
    }
  }, 5)
}
