/**
 * A seam in a process of its own, on a shared store, for tests that need real
 * processes (killed with SIGKILL, racing on a lock). Prints one JSON line per
 * thing that happened; reads commands from stdin.
 *
 *   node --import tsx seam-process.ts <sqlite|postgres> <location> <mode> [options JSON]
 *
 * Modes:
 *   ask     asks `{ key?, timeoutMs? }`; prints {event:'asked', askId} once it is
 *           pending, then {event:'settled', answer} or {event:'settled', code, reason}
 *   answer  registers a provider that answers at once with `{ label }` (or, with
 *           `{ hold: true }`, when told `answer <askId>` on stdin); prints
 *           {event:'presented', askId}, {event:'verdict', askId, status, code?} and
 *           {event:'aborted', askId, code, reason}; `pending` on stdin prints the
 *           seam's pending() as {event:'pending', asks}
 *   lock    (sqlite) holds the write lock: prints {event:'locked'}, and on
 *           `release` commits and prints {event:'released'}
 *
 * With `{ plan: true }` every process asks one plan review instead (DESIGN §12):
 * `ask` takes `{ approvals?, answerers? }`, `answer` answers `{ label }` (default
 * `Approve`) as the responder `{ as }` (with `via: 'test'`), and its `verdict`
 * carries the count of a `counted` one.
 *
 * With `{ telemetry: true }` the seam has `askseam/otel` on an in-memory
 * tracer, and prints each span as it ends: {event:'span', span} (see spanJson).
 */
import { createInterface } from 'node:readline'
import Database from 'better-sqlite3'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore, ProviderAnswer, ProviderRequest } from '../../src/protocol/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import type { SeamTelemetry } from '../../src/protocol/index.js'

const [dialect, location, mode, json] = process.argv.slice(2) as [string, string, string, string?]
const options = (json === undefined ? {} : JSON.parse(json)) as {
  key?: string
  timeoutMs?: number
  label?: string
  hold?: boolean
  busyTimeoutMs?: number
  telemetry?: boolean
  plan?: boolean
  approvals?: number
  answerers?: string[]
  as?: string
}
const say = (value: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(value)}\n`)
const lines = createInterface({ input: process.stdin })

/** The questions every process of a test asks: the same, so keys resume. */
const questions =
  options.plan === true
    ? [
        {
          id: 'plan',
          question: 'Ship it?',
          detail: '1. migrate\n2. deploy',
          options: [{ label: 'Approve' }, { label: 'Revise' }],
          intent: { kind: 'plan-review' as const, approve: 'Approve' },
        },
      ]
    : [
        {
          id: 'db',
          question: 'Which database?',
          options: [{ label: 'Postgres' }, { label: 'SQLite' }],
        },
      ]

/** The seam's telemetry: loaded only when asked for, so the other tests' processes load no OpenTelemetry. */
async function telemetry(): Promise<{ telemetry?: SeamTelemetry }> {
  if (options.telemetry !== true) return {}
  const { openTelemetry } = await import('../../src/otel/index.js')
  const { createTracing, spanJson } = await import('./otel.js')
  const tracing = createTracing((span) => say({ event: 'span', span: spanJson(span) }))
  return { telemetry: openTelemetry({ tracerProvider: tracing.provider }) }
}

function openStore(): AskStore {
  return dialect === 'sqlite'
    ? createSqliteStore({
        path: location,
        pollIntervalMs: 10,
        ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      })
    : createPostgresStore({ connectionString: location })
}

if (mode === 'lock') {
  const db = new Database(location)
  db.pragma('busy_timeout = 10000')
  db.exec('BEGIN IMMEDIATE')
  say({ event: 'locked' })
  lines.on('line', (line) => {
    if (line !== 'release') return
    db.exec('COMMIT')
    db.close()
    say({ event: 'released' })
  })
} else if (mode === 'ask') {
  const store = openStore()
  const seam = createUserQuestions({ store, ...(await telemetry()) })
  const asking = seam.ask({
    questions,
    ...(options.key === undefined ? {} : { key: options.key }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
    ...(options.answerers === undefined ? {} : { answerers: options.answerers }),
  })
  // Told once the store holds the ask: a kill after it leaves the ask behind.
  let told = false
  const announce = setInterval(() => {
    const [pending] = seam.pending()
    if (pending === undefined) return
    void store.get(pending.askId).then((record) => {
      if (record === undefined || told) return
      told = true
      clearInterval(announce)
      say({ event: 'asked', askId: pending.askId, deadline: pending.deadline })
    })
  }, 5)
  asking.then(
    (answer) => say({ event: 'settled', answer }),
    (error: { code?: string; details?: { reason?: string } }) =>
      say({ event: 'settled', code: error.code, reason: error.details?.reason }),
  )
} else if (mode === 'answer') {
  const seam = createUserQuestions({ store: openStore(), ...(await telemetry()) })
  const held = new Map<string, (answer: ProviderAnswer) => void>()
  const answer = (): ProviderAnswer =>
    options.plan === true
      ? {
          answers: [{ id: 'plan', selected: [options.label ?? 'Approve'] }],
          ...(options.as === undefined ? {} : { by: { id: options.as, via: 'test' } }),
        }
      : { answers: [{ id: 'db', selected: [options.label ?? 'SQLite'] }] }
  seam.registerProvider({
    ask(request: ProviderRequest) {
      say({ event: 'presented', askId: request.askId })
      request.signal.addEventListener('abort', () => {
        const reason = request.signal.reason as { code?: string; details?: { reason?: string } }
        say({
          event: 'aborted',
          askId: request.askId,
          code: reason.code,
          reason: reason.details?.reason,
        })
      })
      void request.settlement?.then((verdict) =>
        say({
          event: 'verdict',
          askId: request.askId,
          status: verdict.status,
          ...(verdict.status === 'refused'
            ? { code: verdict.error.code, reason: verdict.error.details?.reason }
            : {}),
          ...(verdict.status === 'counted'
            ? { given: verdict.approvals.given.map((responder) => responder.id) }
            : {}),
        }),
      )
      if (options.hold !== true) return Promise.resolve(answer())
      return new Promise((resolve) => held.set(request.askId, resolve))
    },
  })
  lines.on('line', (line) => {
    const [command, askId] = line.split(' ')
    if (command === 'pending') say({ event: 'pending', asks: seam.pending() })
    if (command === 'answer' && askId !== undefined) {
      held.get(askId)?.(answer())
      say({ event: 'answered', askId })
    }
  })
  say({ event: 'ready' })
}
