/**
 * The SQLite store against the same writes done raw with better-sqlite3
 * prepared statements, in the same run on the same disk:
 *
 * - the ask round trip (admit + settle + get) against INSERT + UPDATE +
 *   SELECT (goal: at most 1.5×);
 * - ending 10,000 overdue asks (`expireOverdue`) against one raw UPDATE of
 *   10,000 rows (goal: at most 5×).
 *
 * Both sides use WAL and synchronous=FULL, so each commit waits for the disk:
 * the ratio is what the store adds to the writes it cannot avoid. Rounds
 * alternate store and raw so a noisy neighbour hits both. Prints a table.
 *
 *   node --import tsx bench/sqlite.bench.ts
 *
 * Environment: BENCH_SQLITE_ASKS (default 200) round trips per round, 5 rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { STORE_SCHEMA_VERSION, TIMEOUT_MESSAGE } from '../src/protocol/index.js'
import type { AskStore, NewAskRecord, StoredOutcome } from '../src/protocol/index.js'
import { createSqliteStore } from '../src/stores/sqlite/index.js'
import { median, table } from './measure.js'

const ASKS = Number(process.env.BENCH_SQLITE_ASKS ?? 200)
const ROUNDS = 5
const OVERDUE = 10_000
const EXPIRY_ROUNDS = 5

const dir = mkdtempSync(join(tmpdir(), 'askseam-sqlite-bench-'))
let sequence = 0
const questions = [
  {
    id: 'region',
    question: 'Which region should the service be deployed to?',
    options: [{ label: 'eu-west-1', description: 'Next to the replica' }, { label: 'us-east-1' }],
  },
]
const outcome: StoredOutcome = {
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

async function storeRoundTrips(store: AskStore): Promise<number> {
  const started = performance.now()
  for (let i = 0; i < ASKS; i += 1) {
    const ask = newAsk()
    await store.admit(ask)
    await store.settle(ask.askId, outcome, Date.now())
    await store.get(ask.askId)
  }
  return (performance.now() - started) / ASKS
}

function rawRoundTrips(db: Database.Database): number {
  const insert = db.prepare(insertSql)
  const settle = db.prepare(
    `UPDATE asks SET state = 'settled', outcome = ?, settled_at = ? WHERE ask_id = ? AND state = 'pending'`,
  )
  const get = db.prepare('SELECT * FROM asks WHERE ask_id = ?')
  const started = performance.now()
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
  return (performance.now() - started) / ASKS
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

async function main(): Promise<void> {
  const store = createSqliteStore({ path: join(dir, 'store.db') })
  const raw = await rawFile('raw.db')
  const storeMs: number[] = []
  const rawMs: number[] = []
  await storeRoundTrips(store)
  rawRoundTrips(raw)
  for (let round = 0; round < ROUNDS; round += 1) {
    storeMs.push(await storeRoundTrips(store))
    rawMs.push(rawRoundTrips(raw))
  }

  const expiryStore: number[] = []
  const expiryRaw: number[] = []
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
    let started = performance.now()
    const ended = await expiring.expireOverdue(20)
    expiryStore.push(performance.now() - started)
    if (ended.length !== OVERDUE) throw new Error(`expireOverdue ended ${ended.length} asks`)
    fillOverdue(rawFiller)
    started = performance.now()
    const { changes } = rawUpdate.run(20, timeout, 20)
    expiryRaw.push(performance.now() - started)
    if (changes !== OVERDUE) throw new Error(`the raw UPDATE changed ${changes} rows`)
  }

  const roundTrip = median(storeMs) / median(rawMs)
  const expiry = median(expiryStore) / median(expiryRaw)
  const ms = (value: number) => `${value.toFixed(2)} ms`
  console.log('## SQLite store\n')
  console.log(
    table(
      ['operation', 'store (median)', 'raw better-sqlite3 (median)', 'ratio', 'goal'],
      [
        [
          'ask round trip: admit + settle + get',
          ms(median(storeMs)),
          ms(median(rawMs)),
          `${roundTrip.toFixed(2)}×`,
          `≤ 1.5× ${roundTrip <= 1.5 ? 'met' : 'NOT met'}`,
        ],
        [
          `end ${OVERDUE.toLocaleString('en')} overdue asks`,
          ms(median(expiryStore)),
          ms(median(expiryRaw)),
          `${expiry.toFixed(2)}×`,
          `≤ 5× ${expiry <= 5 ? 'met' : 'NOT met'}`,
        ],
      ],
    ),
  )
  console.log(
    `\n${ROUNDS} rounds of ${ASKS} round trips; ${EXPIRY_ROUNDS} expiry rounds; WAL, synchronous=FULL on both sides.`,
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
