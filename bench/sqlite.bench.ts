/**
 * The SQLite store against the same writes done raw with better-sqlite3
 * prepared statements, in the same run on the same disk:
 *
 * - the ask round trip (admit + settle + get) against INSERT + UPDATE +
 *   SELECT (goal: at most 1.5×);
 * - ending 10,000 overdue asks (`expireOverdue`) against one raw UPDATE of
 *   10,000 rows (goal: at most 5×);
 * - a settle committed through one store to another store's `watch` on the
 *   same file (another connection, as another process has) seeing it, at the
 *   default poll interval (goal: p50 at most 50 ms).
 *
 * Both sides use WAL and synchronous=FULL, so each commit waits for the disk:
 * the ratio is what the store adds to the writes it cannot avoid. Rounds
 * alternate store and raw so a noisy neighbour hits both. Prints a table.
 *
 *   npm run bench -- sqlite
 *
 * Environment: BENCH_SQLITE_ASKS (default 1000) round trips per round, 5 rounds: each
 * commit waits for the disk, so fewer swing the ratio with every stall of a
 * shared disk.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { STORE_SCHEMA_VERSION, TIMEOUT_MESSAGE } from '../src/protocol/internal.js'
import type { AskOutcome, AskStore, NewAskRecord, StoreChange } from '../src/protocol/internal.js'
import { createSqliteStore } from '../src/stores/sqlite/index.js'
import { median, percentile, table } from './measure.js'

const ASKS = Number(process.env.BENCH_SQLITE_ASKS ?? 1_000)
const ROUNDS = 5
const OVERDUE = 10_000
const EXPIRY_ROUNDS = 5
const LATENCY_SAMPLES = 200

const dir = mkdtempSync(join(tmpdir(), 'askseam-sqlite-bench-'))
let sequence = 0
const questions = [
  {
    id: 'region',
    question: 'Which region should the service be deployed to?',
    options: [{ label: 'eu-west-1', description: 'Next to the replica' }, { label: 'us-east-1' }],
  },
]
const outcome: AskOutcome = {
  status: 'answered',
  answer: { answers: [{ id: 'region', selected: ['eu-west-1'] }] },
}
const newAsk = (deadline?: number): NewAskRecord => {
  sequence += 1
  return {
    askId: `bench-${sequence}`,
    key: `key-${sequence}`,
    questions,
    ownerSeamId: 'bench-seam',
    startedAt: Date.now(),
    ...(deadline === undefined ? {} : { deadline }),
  }
}

/** A file with the store's schema, opened raw with the store's pragmas. */
async function rawFile(name: string): Promise<Database.Database> {
  const path = join(dir, name)
  const store = createSqliteStore({ path })
  await store.pending()
  await store.close()
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  return db
}

const insertSql = `INSERT INTO asks (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at,
  deadline, state, outcome, settled_at, revision, schema_version)
  VALUES (?, ?, ?, NULL, ?, ?, ?, 'pending', NULL, NULL, 1, ${STORE_SCHEMA_VERSION})`

/** Wall-clock and this process's CPU time: the second shrugs off a noisy neighbour. */
interface Sample {
  wall: number
  cpu: number
}
const cpuMs = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}
const clock = (): (() => Sample) => {
  const wall = performance.now()
  const cpu = cpuMs()
  return () => ({ wall: performance.now() - wall, cpu: cpuMs() - cpu })
}
const perAsk = (sample: Sample): Sample => ({ wall: sample.wall / ASKS, cpu: sample.cpu / ASKS })

async function storeRoundTrips(store: AskStore): Promise<Sample> {
  const stop = clock()
  for (let i = 0; i < ASKS; i += 1) {
    const ask = newAsk()
    await store.admit(ask)
    await store.settle(ask.askId, outcome, Date.now())
    await store.get(ask.askId)
  }
  return perAsk(stop())
}

function rawRoundTrips(db: Database.Database): Sample {
  const insert = db.prepare(insertSql)
  const settle = db.prepare(
    `UPDATE asks SET state = 'settled', outcome = ?, settled_at = ? WHERE ask_id = ? AND state = 'pending'`,
  )
  const get = db.prepare('SELECT * FROM asks WHERE ask_id = ?')
  const stop = clock()
  for (let i = 0; i < ASKS; i += 1) {
    const ask = newAsk()
    insert.run(
      ask.askId,
      ask.key,
      JSON.stringify(ask.questions),
      ask.ownerSeamId,
      ask.startedAt,
      null,
    )
    settle.run(JSON.stringify(outcome), Date.now(), ask.askId)
    get.get(ask.askId)
  }
  return perAsk(stop())
}

function fillOverdue(db: Database.Database): void {
  const insert = db.prepare(insertSql)
  db.transaction(() => {
    for (let i = 0; i < OVERDUE; i += 1) {
      const ask = newAsk(10)
      insert.run(ask.askId, ask.key, JSON.stringify(ask.questions), ask.ownerSeamId, 1, 10)
    }
  })()
}

/** Milliseconds from calling `settle` on one store to another store's watch reporting it. */
async function watchLatency(): Promise<number[]> {
  const path = join(dir, 'latency.db')
  const writer = createSqliteStore({ path })
  const watcher = createSqliteStore({ path })
  await writer.pending()
  await watcher.pending()
  let waiting: { askId: string; seen: (at: number) => void } | undefined
  const unwatch = watcher.watch((change: StoreChange) => {
    if (change.type === 'ask.settled' && change.record.askId === waiting?.askId) {
      waiting.seen(performance.now())
    }
  })
  // The store's poll does not keep a process alive; while a settle is awaited, this does.
  const alive = setInterval(() => undefined, 1_000)
  const samples: number[] = []
  for (let i = 0; i < LATENCY_SAMPLES + 20; i += 1) {
    // Settles land at any point of the watcher's poll, not just after the tick that saw the last.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 25))
    const ask = newAsk()
    await writer.admit(ask)
    const seen = new Promise<number>((resolve) => (waiting = { askId: ask.askId, seen: resolve }))
    const called = performance.now()
    await writer.settle(ask.askId, outcome, Date.now())
    const seenAt = await seen
    if (i >= 20) samples.push(seenAt - called)
  }
  clearInterval(alive)
  unwatch()
  await writer.close()
  await watcher.close()
  return samples
}

async function main(): Promise<void> {
  const store = createSqliteStore({ path: join(dir, 'store.db') })
  const raw = await rawFile('raw.db')
  const storeMs: Sample[] = []
  const rawMs: Sample[] = []
  await storeRoundTrips(store)
  rawRoundTrips(raw)
  for (let round = 0; round < ROUNDS; round += 1) {
    storeMs.push(await storeRoundTrips(store))
    rawMs.push(rawRoundTrips(raw))
  }

  const expiryStore: Sample[] = []
  const expiryRaw: Sample[] = []
  const storeFile = await rawFile('expiry-store.db')
  const expiring = createSqliteStore({ path: join(dir, 'expiry-store.db') })
  const rawExpiry = await rawFile('expiry-raw.db')
  // Each side's asks are written by another connection, as another process
  // would have admitted them: neither ends rows still warm in its own cache.
  const rawFiller = await rawFile('expiry-raw.db')
  const rawUpdate = rawExpiry.prepare(
    `UPDATE asks SET state = 'settled', settled_at = ?, outcome = ? WHERE state = 'pending' AND deadline <= ?`,
  )
  const timeout = JSON.stringify({
    status: 'rejected',
    error: {
      code: 'ASK_TIMEOUT',
      message: TIMEOUT_MESSAGE,
      details: { deadline: 10, startedAt: 1 },
    },
  })
  for (let round = 0; round < EXPIRY_ROUNDS; round += 1) {
    fillOverdue(storeFile)
    let stop = clock()
    const ended = await expiring.expireOverdue(20)
    expiryStore.push(stop())
    if (ended.length !== OVERDUE) throw new Error(`expireOverdue ended ${ended.length} asks`)
    fillOverdue(rawFiller)
    stop = clock()
    const { changes } = rawUpdate.run(20, timeout, 20)
    expiryRaw.push(stop())
    if (changes !== OVERDUE) throw new Error(`the raw UPDATE changed ${changes} rows`)
  }

  const latency = await watchLatency()

  const wall = (samples: Sample[]) => median(samples.map((sample) => sample.wall))
  const cpu = (samples: Sample[]) => median(samples.map((sample) => sample.cpu))
  const ms = (value: number) => `${value.toFixed(2)} ms`
  const row = (operation: string, store: Sample[], raw: Sample[], goal: number): string[] => {
    const ratio = wall(store) / wall(raw)
    return [
      operation,
      ms(wall(store)),
      ms(wall(raw)),
      `${ratio.toFixed(2)}×`,
      `${(cpu(store) / cpu(raw)).toFixed(2)}×`,
      `≤ ${goal}× ${ratio <= goal ? 'met' : 'NOT met'}`,
    ]
  }
  console.log('## SQLite store\n')
  console.log(
    table(
      [
        'operation',
        'store (median)',
        'raw better-sqlite3 (median)',
        'ratio',
        'CPU-time ratio',
        'goal',
      ],
      [
        row('ask round trip: admit + settle + get', storeMs, rawMs, 1.5),
        row(`end ${OVERDUE.toLocaleString('en')} overdue asks`, expiryStore, expiryRaw, 5),
        [
          'settle → another store’s watch sees it (p50 / p95)',
          `${ms(median(latency))} / ${ms(percentile(latency, 95))}`,
          '',
          '',
          '',
          `≤ 50 ms p50 ${median(latency) <= 50 ? 'met' : 'NOT met'}`,
        ],
      ],
    ),
  )
  console.log(
    `\n${ROUNDS} rounds of ${ASKS} round trips; ${EXPIRY_ROUNDS} expiry rounds; ${LATENCY_SAMPLES} settles watched at the default 25 ms poll; WAL, synchronous=FULL on both sides.`,
  )
  await store.close()
  await expiring.close()
  raw.close()
  storeFile.close()
  rawExpiry.close()
  rawFiller.close()
}

try {
  await main()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
