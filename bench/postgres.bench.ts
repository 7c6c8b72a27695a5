/**
 * The Postgres store against the same statements done raw with `pg`, in one
 * run on one server:
 *
 * - round trip: admit + settle + get, one ask at a time (goal: at most 1.5×);
 * - ending 10,000 overdue asks with `expireOverdue` against one raw `UPDATE`
 *   of 10,000 rows (goal: at most 5×);
 * - a settle committed through one store to another store's `watch` seeing
 *   it, over loopback (goal: p50 at most 10 ms).
 *
 *   ASKSEAM_POSTGRES_URL=postgres://... npm run bench -- postgres
 *
 * Without ASKSEAM_POSTGRES_URL it starts a throwaway cluster
 * (scripts/postgres.sh) and removes it afterwards. Rounds of the store and of
 * the raw statements alternate, so a busy machine weighs on both alike.
 * Environment: BENCH_ASKS (default 2000) round trips per side.
 */
import { execFileSync } from 'node:child_process'
import pg from 'pg'
import type { AskOutcome, AskStore, NewAskRecord, StoreChange } from '../src/protocol/internal.js'
import { STORE_SCHEMA_VERSION, TIMEOUT_MESSAGE } from '../src/protocol/internal.js'
import { createPostgresStore } from '../src/stores/postgres/index.js'
import { statements } from '../src/stores/postgres/statements.js'
import { goal, median, percentile, repoFile, table } from './measure.js'

const ASKS = Number(process.env.BENCH_ASKS ?? 2000)
const ROUNDS = 10
const SWEEP = 10_000
const SWEEP_ROUNDS = 7
const LATENCY_SAMPLES = 300
const script = repoFile('scripts/postgres.sh')

let cluster: string | undefined
let url = process.env.ASKSEAM_POSTGRES_URL
if (url === undefined || url === '') {
  const printed = execFileSync('bash', [script, 'up'], { encoding: 'utf8' })
  url = /ASKSEAM_POSTGRES_URL=(\S+)/.exec(printed)?.[1]
  cluster = /ASKSEAM_POSTGRES_DIR=(\S+)/.exec(printed)?.[1]
}
const server = url as string

const admin = new pg.Pool({ connectionString: server, max: 2 })
const schemas: string[] = []
async function schemaUrl(): Promise<string> {
  const name = `askseam_bench_${process.pid}_${schemas.length}`
  schemas.push(name)
  await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE; CREATE SCHEMA ${name}`)
  const parsed = new URL(server)
  parsed.searchParams.set('options', `-c search_path=${name}`)
  return parsed.toString()
}

const questions = [
  {
    id: 'region',
    question: 'Which region should the service be deployed to?',
    options: [
      { label: 'eu-west-1', description: 'Next to the database replica' },
      { label: 'us-east-1', description: 'Closest to most users' },
    ],
  },
]
const outcome: AskOutcome = {
  status: 'answered',
  answer: { answers: [{ id: 'region', selected: ['eu-west-1'] }] },
}
let sequence = 0
const newAsk = (): NewAskRecord => {
  sequence += 1
  return {
    askId: `bench-${sequence}`,
    questions,
    ownerSeamId: 'bench-seam',
    startedAt: Date.now(),
    deadline: Date.now() + 600_000,
  }
}

/** The store's round trip. */
async function storeRoundTrips(store: AskStore, count: number): Promise<number> {
  const start = performance.now()
  for (let i = 0; i < count; i += 1) {
    const ask = newAsk()
    await store.admit(ask)
    await store.settle(ask.askId, outcome, Date.now())
    await store.get(ask.askId)
  }
  return (performance.now() - start) / count
}

/** The same three statements through a plain pool, rows parsed by pg's defaults. */
async function rawRoundTrips(pool: pg.Pool, channel: string, count: number): Promise<number> {
  const start = performance.now()
  for (let i = 0; i < count; i += 1) {
    const ask = newAsk()
    await pool.query(statements.insert, [
      ask.askId,
      null,
      JSON.stringify(ask.questions),
      null,
      ask.ownerSeamId,
      ask.startedAt,
      ask.deadline,
      STORE_SCHEMA_VERSION,
      channel,
    ])
    await pool.query(statements.settle, [
      ask.askId,
      JSON.stringify(outcome),
      Date.now(),
      STORE_SCHEMA_VERSION,
      channel,
      TIMEOUT_MESSAGE,
      false,
    ])
    await pool.query(statements.get, [ask.askId])
  }
  return (performance.now() - start) / count
}

async function roundTrip(): Promise<string[][]> {
  const at = await schemaUrl()
  const store = createPostgresStore({ connectionString: at })
  const pool = new pg.Pool({ connectionString: at, max: 10 })
  await store.pending()
  const channel = `askseam:${schemas[schemas.length - 1]}`
  await storeRoundTrips(store, 200)
  await rawRoundTrips(pool, channel, 200)
  const perRound = Math.max(1, Math.round(ASKS / ROUNDS))
  const storeMs: number[] = []
  const rawMs: number[] = []
  for (let round = 0; round < ROUNDS; round += 1) {
    storeMs.push(await storeRoundTrips(store, perRound))
    rawMs.push(await rawRoundTrips(pool, channel, perRound))
  }
  await store.close()
  await pool.end()
  const s = median(storeMs)
  const r = median(rawMs)
  return [
    [
      'round trip (admit + settle + get)',
      `${s.toFixed(3)} ms`,
      `${r.toFixed(3)} ms`,
      ratio(s, r),
      goal(s / r, 1.5),
    ],
  ]
}

async function fillOverdue(pool: pg.Pool): Promise<void> {
  await pool.query(
    `INSERT INTO askseam_asks
      (ask_id, questions, owner_seam_id, started_at, deadline, state, schema_version)
     SELECT 'sweep-' || n || '-' || $2, $1::json, 'bench-seam', 1000 + n, 2000, 'pending', $3
     FROM generate_series(1, ${SWEEP}) AS n`,
    [JSON.stringify(questions), sequence++, STORE_SCHEMA_VERSION],
  )
  await pool.query('VACUUM ANALYZE askseam_asks')
}

async function sweep(): Promise<string[][]> {
  const storeAt = await schemaUrl()
  const rawAt = await schemaUrl()
  const store = createPostgresStore({ connectionString: storeAt })
  const twin = createPostgresStore({ connectionString: rawAt })
  await Promise.all([store.pending(), twin.pending()]) // the same tables in both schemas
  await twin.close()
  const storePool = new pg.Pool({ connectionString: storeAt, max: 2 })
  const rawPool = new pg.Pool({ connectionString: rawAt, max: 2 })
  const storeMs: number[] = []
  const rawMs: number[] = []
  // Round 0 warms both paths up (the parser's JIT above all) and is not counted.
  for (let round = 0; round <= SWEEP_ROUNDS; round += 1) {
    await storePool.query('TRUNCATE askseam_asks')
    await fillOverdue(storePool)
    let start = performance.now()
    const ended = await store.expireOverdue(3000)
    if (round > 0) storeMs.push(performance.now() - start)
    if (ended.length !== SWEEP) throw new Error(`the store ended ${ended.length} asks`)

    await rawPool.query('TRUNCATE askseam_asks')
    await fillOverdue(rawPool)
    start = performance.now()
    const raw = await rawPool.query(
      `UPDATE askseam_asks SET state = 'settled', settled_at = $1, outcome = $2::json
       WHERE state = 'pending' AND deadline <= $1`,
      [
        3000,
        JSON.stringify({
          status: 'rejected',
          error: { code: 'ASK_TIMEOUT', message: TIMEOUT_MESSAGE },
        }),
      ],
    )
    if (round > 0) rawMs.push(performance.now() - start)
    if (raw.rowCount !== SWEEP) throw new Error(`the raw UPDATE ended ${raw.rowCount} rows`)
  }
  await store.close()
  await storePool.end()
  await rawPool.end()
  const s = median(storeMs)
  const r = median(rawMs)
  return [
    [
      `ending ${SWEEP.toLocaleString('en')} overdue asks`,
      `${s.toFixed(1)} ms`,
      `${r.toFixed(1)} ms`,
      ratio(s, r),
      goal(s / r, 5),
    ],
  ]
}

async function latency(): Promise<string[][]> {
  const at = await schemaUrl()
  const writer = createPostgresStore({ connectionString: at })
  const watcher = createPostgresStore({ connectionString: at })
  let waiting: { askId: string; seen: (at: number) => void } | undefined
  let connected!: () => void
  const listening = new Promise<void>((resolve) => (connected = resolve))
  watcher.watch((change: StoreChange) => {
    if (change.type === 'resync') connected()
    if (change.type === 'ask.settled' && change.record.askId === waiting?.askId) {
      waiting.seen(performance.now())
    }
  })
  await listening
  const fromCall: number[] = []
  const fromCommit: number[] = []
  for (let i = 0; i < LATENCY_SAMPLES + 30; i += 1) {
    const ask = newAsk()
    await writer.admit(ask)
    const seen = new Promise<number>((resolve) => (waiting = { askId: ask.askId, seen: resolve }))
    const called = performance.now()
    await writer.settle(ask.askId, outcome, Date.now())
    const committed = performance.now()
    const seenAt = await seen
    if (i >= 30) {
      fromCall.push(seenAt - called)
      fromCommit.push(Math.max(0, seenAt - committed))
    }
  }
  await writer.close()
  await watcher.close()
  const p50 = median(fromCall)
  return [
    [
      'settle → another store’s watch sees it (p50 / p95)',
      `${p50.toFixed(2)} / ${percentile(fromCall, 95).toFixed(2)} ms`,
      `after the settle resolved: ${median(fromCommit).toFixed(2)} ms`,
      '',
      `p50 ${goal(p50, 10, ' ms')}`,
    ],
  ]
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`

try {
  const rows = [...(await roundTrip()), ...(await sweep()), ...(await latency())]
  const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]
    ?.server_version
  console.log(`## Postgres store (PostgreSQL ${version ?? '?'} on loopback)\n`)
  console.log(table(['measure', 'store', 'raw pg, same run', 'ratio', 'goal'], rows))
} finally {
  for (const name of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)
  await admin.end()
  if (cluster !== undefined) execFileSync('bash', [script, 'down', cluster])
}
