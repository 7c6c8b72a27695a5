/**
 * One process of the soak (scripts/soak.ts), on the shared store:
 *
 *   node --import tsx scripts/soak/child.ts asker <sqlite|postgres> <location> <AskerOptions JSON>
 *   node --import tsx scripts/soak/child.ts answerer <sqlite|postgres> <location> <AnswererOptions JSON>
 *
 * An asker works through its share of the keys, a few at a time, and appends
 * every outcome its caller got to its log file before it counts the key done:
 * the log is what the soak holds against the rows. Started again after a
 * SIGKILL, it reads the log and asks again for every key without a final
 * outcome, which resumes the stored ask (DESIGN §10). Prints
 * `{event:'finished'}` once every key of its share has a final outcome.
 *
 * An answerer registers a provider that answers every ask it is shown, at once
 * or after a delay chosen from the askId (so both answerers are slow on the
 * same asks, and short deadlines pass on some), with a custom text naming the
 * askId and the answerer: an answer a caller gets names the row it came from.
 * Prints `{event:'ready'}`, then `{event:'stats', presented, accepted, refused}`.
 */
import { appendFileSync } from 'node:fs'
import { createUserQuestions, isUserQuestionError } from '../../src/protocol/index.js'
import type { AskStore, AskUserQuestionAnswer, ProviderRequest } from '../../src/protocol/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { keyOf, questionsOf, readLog, timeoutOf } from './plan.js'
import type { AnswererOptions, AskerOptions, LoggedOutcome } from './plan.js'

/** Outcomes an ask with the key does not replay (DESIGN §10): the caller asks again. */
const RETRIED = new Set(['STORE_FAILED', 'NO_PROVIDER', 'SEAM_CLOSED'])
const MAX_ATTEMPTS = 30

const say = (value: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(value)}\n`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function openStore(dialect: string, location: string, busyTimeoutMs: number): AskStore {
  return dialect === 'sqlite'
    ? createSqliteStore({ path: location, busyTimeoutMs })
    : createPostgresStore({ connectionString: location })
}

async function runAsker(dialect: string, location: string, options: AskerOptions): Promise<void> {
  const done = new Set(
    readLog(options.log)
      .filter((line) => line.final)
      .map((line) => line.key),
  )
  const mine: number[] = []
  for (let index = options.asker; index < options.total; index += options.askers) {
    if (!done.has(keyOf(index))) mine.push(index)
  }
  const seam = createUserQuestions({ store: openStore(dialect, location, options.busyTimeoutMs) })

  const askKey = async (index: number): Promise<void> => {
    const key = keyOf(index)
    for (let attempt = 1; ; attempt += 1) {
      const line: LoggedOutcome = { key, pid: process.pid, at: 0, final: true, status: 'answered' }
      try {
        line.answer = await seam.ask({
          key,
          questions: questionsOf(key),
          timeoutMs: timeoutOf(index),
        })
      } catch (caught: unknown) {
        line.status = 'rejected'
        // ask() rejects with a UserQuestionError and nothing else: anything else is logged as such, and disagrees with every row.
        line.error = isUserQuestionError(caught)
          ? {
              code: caught.code,
              message: caught.message,
              ...(caught.details === undefined ? {} : { details: { ...caught.details } }),
            }
          : { code: 'NOT_A_USER_QUESTION_ERROR', message: String(caught) }
        line.final = !RETRIED.has(line.error.code) || attempt >= MAX_ATTEMPTS
      }
      line.at = Date.now()
      appendFileSync(options.log, `${JSON.stringify(line)}\n`)
      if (line.final) return
      await sleep(100 * attempt)
    }
  }

  const queue = [...mine]
  const worker = async () => {
    for (let index = queue.shift(); index !== undefined; index = queue.shift()) {
      await askKey(index)
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker))
  // Exits once the line is out: the soak counts the asker finished by it.
  process.stdout.write(`${JSON.stringify({ event: 'finished' })}\n`, () => process.exit(0))
}

/** A number from the askId, the same in every answerer. */
function hashOf(text: string): number {
  let hash = 2166136261
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619)
  return hash >>> 0
}

/** One ask in twenty waits 1–3 s, one in four up to 50 ms, the rest is answered at once. */
function delayOf(askId: string): number {
  const hash = hashOf(askId)
  if (hash % 20 === 0) return 1_000 + ((hash >>> 8) % 2_000)
  if (hash % 4 === 1) return (hash >>> 8) % 50
  return 0
}

function runAnswerer(dialect: string, location: string, options: AnswererOptions): void {
  const seam = createUserQuestions({ store: openStore(dialect, location, options.busyTimeoutMs) })
  const stats = { presented: 0, accepted: 0, refused: 0 }
  seam.registerProvider({
    async ask(request: ProviderRequest): Promise<AskUserQuestionAnswer> {
      stats.presented += 1
      void request.settlement?.then((verdict) => {
        if (verdict.status === 'accepted') stats.accepted += 1
        else stats.refused += 1
      })
      const delay = delayOf(request.askId)
      if (delay > 0) await sleep(delay)
      return {
        answers: [
          {
            id: 'db',
            selected: [],
            custom: `${request.askId} answered by ${options.name}/${process.pid}`,
          },
        ],
      }
    },
  })
  setInterval(() => say({ event: 'stats', ...stats }), 1_000)
  say({ event: 'ready' })
}

const [mode, dialect, location, json] = process.argv.slice(2) as [string, string, string, string]
if (mode === 'asker') {
  await runAsker(dialect, location, JSON.parse(json) as AskerOptions)
} else if (mode === 'answerer') {
  runAnswerer(dialect, location, JSON.parse(json) as AnswererOptions)
} else if (mode !== undefined) {
  throw new Error(`unknown mode ${mode}`)
}
