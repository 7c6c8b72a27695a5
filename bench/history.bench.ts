/**
 * History lookups (DESIGN §12) as the store grows: `history({ key })`,
 * `history({ askId })` and `history({ agentId, limit: 10 })` through the
 * store, on a small store and a big one measured in the same run (goal: the
 * big one at most 2× the small one's time per lookup, i.e. the lookups use
 * indexes, not scans).
 *
 * - SQLite: 1,000 asks against 1,000,000;
 * - Postgres: 1,000 asks against 100,000 (skipped without a server: set
 *   ASKSEAM_POSTGRES_URL, or have scripts/postgres.sh able to start one).
 *
 * Every ask has a record like a real one: a `presented` and a `vote` event
 * and a delivered notification; 100 agents share the asks. The big stores
 * are built with one bulk INSERT per table in one transaction, not through
 * `admit`, which would take hours for a million asks. Rounds alternate
 * small and big, so a busy machine weighs on both alike.
 *
 *   npm run bench -- history
 *
 * Environment: BENCH_HISTORY_BIG (default 1000000) asks in the big SQLite
 * store, BENCH_HISTORY_PG_BIG (default 100000) in the big Postgres one.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { STORE_SCHEMA_VERSION } from '../src/protocol/internal.js'
import type { AskStore, HistoryQuery } from '../src/protocol/internal.js'
import { createPostgresStore } from '../src/stores/postgres/index.js'
import { createSqliteStore } from '../src/stores/sqlite/index.js'
import { goal, median, repoFile, table } from './measure.js'

const SMALL = 1_000
const BIG = Number(process.env.BENCH_HISTORY_BIG ?? 1_000_000)
const PG_BIG = Number(process.env.BENCH_HISTORY_PG_BIG ?? 100_000)
const AGENTS = 100
const ROUNDS = 5
const LOOKUPS = 1_000
const WARM_UP = 200

const questions = JSON.stringify([
  {
    id: 'plan',
    question: 'Ship the release?',
    options: [{ label: 'Ship' }, { label: 'Wait' }],
    intent: { kind: 'plan-review', approve: 'Ship' },
  },
])
const outcome = JSON.stringify({
  status: 'answered',
  answer: { answers: [{ id: 'plan', selected: ['Ship'] }] },
  by: [{ id: 'ann', via: 'web' }],
})
const responder = JSON.stringify({ id: 'ann', via: 'web' })

/** The lookups one round makes, of asks spread over the whole store. */
function queries(size: number): Array<{ name: string; make: (i: number) => HistoryQuery }> {
  const pick = (i: number) => 1 + ((i * 7_919) % size)
  return [
    { name: 'by key', make: (i) => ({ key: `key-${pick(i)}` }) },
    { name: 'by askId', make: (i) => ({ askId: `ask-${pick(i)}` }) },
    { name: 'by agentId, limit 10', make: (i) => ({ agentId: `agent-${i % AGENTS}`, limit: 10 }) },
  ]
}

/** Microseconds per lookup of `count` lookups made one after another. */
async function perLookup(
  store: AskStore,
  make: (i: number) => HistoryQuery,
  count: number,
  offset: number,
): Promise<number> {
  const start = process.hrtime.bigint()
  for (let i = 0; i < count; i += 1) {
    const [found] = await store.history(make(offset + i))
    if (found === undefined) throw new Error('bench: a lookup found nothing')
  }
  return Number(process.hrtime.bigint() - start) / 1_000 / count
}

/** Rows per round of small and big stores, alternating; the ratio of medians. */
async function compare(
  label: string,
  small: AskStore,
  big: AskStore,
  sizes: [number, number],
): Promise<string[][]> {
  const rows: string[][] = []
  for (const [index, query] of queries(sizes[0]).entries()) {
    const bigQuery = queries(sizes[1])[index]?.make as (i: number) => HistoryQuery
    await perLookup(small, query.make, WARM_UP, 0)
    await perLookup(big, bigQuery, WARM_UP, 0)
    const times: { small: number[]; big: number[] } = { small: [], big: [] }
    for (let round = 0; round < ROUNDS; round += 1) {
      const offset = WARM_UP + round * LOOKUPS
      times.small.push(await perLookup(small, query.make, LOOKUPS, offset))
      times.big.push(await perLookup(big, bigQuery, LOOKUPS, offset))
    }
    const ratio = median(times.big) / median(times.small)
    rows.push([
      `${label}, ${query.name}`,
      `${median(times.small).toFixed(1)} µs`,
      `${median(times.big).toFixed(1)} µs`,
      `${ratio.toFixed(2)}×`,
      goal(ratio, 2),
    ])
  }
  return rows
}

/** A SQLite file of the store's schema holding `size` settled asks with their records. */
async function sqliteOf(dir: string, size: number): Promise<{ store: AskStore; buildMs: number }> {
  const path = join(dir, `history-${size}.db`)
  const migrated = createSqliteStore({ path })
  await migrated.pending()
  await migrated.close()
  const started = Date.now()
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.transaction(() => {
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @size)
       INSERT INTO asks (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at, deadline,
         state, outcome, settled_at, revision, schema_version, policy)
       SELECT 'ask-' || i, 'key-' || i, @questions, 'agent-' || (i % ${AGENTS}), 'seam', 1700000000000 + i,
         NULL, 'settled', @outcome, 1700000000000 + i + 10, 1, ${STORE_SCHEMA_VERSION}, '{"approvals":2}'
       FROM n`,
    ).run({ size, questions, outcome })
    db.prepare(
      `INSERT INTO ask_events (ask_id, at, type, by_id, by_json, detail)
       SELECT ask_id, started_at + 1, 'presented', 'ann', @by, NULL FROM asks`,
    ).run({ by: responder })
    db.prepare(
      `INSERT INTO ask_events (ask_id, at, type, by_id, by_json, detail)
       SELECT ask_id, started_at + 2, 'vote', 'ann', @by, NULL FROM asks`,
    ).run({ by: responder })
    db.exec(`INSERT INTO notifications (event_id, ask_id, ending, finished_at)
       SELECT ask_id || '.settled', ask_id, 'delivered', settled_at + 5 FROM asks`)
  })()
  db.exec('ANALYZE')
  db.close()
  return { store: createSqliteStore({ path }), buildMs: Date.now() - started }
}

async function sqliteSection(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'askseam-history-bench-'))
  try {
    const small = await sqliteOf(dir, SMALL)
    const big = await sqliteOf(dir, BIG)
    const rows = await compare('SQLite', small.store, big.store, [SMALL, BIG])
    await small.store.close()
    await big.store.close()
    return [
      table(
        [
          'lookup',
          `${SMALL.toLocaleString('en')} asks`,
          `${BIG.toLocaleString('en')} asks`,
          'ratio',
          'goal',
        ],
        rows,
      ),
      '',
      `The ${BIG.toLocaleString('en')}-ask file (each ask with 2 events and a delivered notification) built in ${(big.buildMs / 1_000).toFixed(1)} s by bulk INSERT.`,
    ].join('\n')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A Postgres server: ASKSEAM_POSTGRES_URL, or a throwaway cluster; undefined when neither is there. */
function postgresServer(): { url: string; cluster?: string } | undefined {
  const given = process.env.ASKSEAM_POSTGRES_URL
  if (given !== undefined && given !== '') return { url: given }
  try {
    const printed = execFileSync('bash', [repoFile('scripts/postgres.sh'), 'up'], {
      encoding: 'utf8',
    })
    const url = /ASKSEAM_POSTGRES_URL=(\S+)/.exec(printed)?.[1]
    const cluster = /ASKSEAM_POSTGRES_DIR=(\S+)/.exec(printed)?.[1]
    return url === undefined ? undefined : { url, ...(cluster === undefined ? {} : { cluster }) }
  } catch {
    return undefined
  }
}

async function postgresSection(): Promise<string> {
  const server = postgresServer()
  if (server === undefined) return '_Postgres skipped: no server (ASKSEAM_POSTGRES_URL)._'
  const admin = new pg.Pool({ connectionString: server.url, max: 2 })
  const schemas: string[] = []
  const storeOf = async (size: number): Promise<AskStore> => {
    const schema = `askseam_history_bench_${process.pid}_${size}`
    schemas.push(schema)
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`)
    const parsed = new URL(server.url)
    parsed.searchParams.set('options', `-c search_path=${schema}`)
    const store = createPostgresStore({ connectionString: parsed.toString() })
    await store.pending()
    const client = await admin.connect()
    try {
      await client.query(`SET search_path = ${schema}`)
      await client.query('BEGIN')
      await client.query(
        `INSERT INTO askseam_asks (ask_id, ask_key, questions, agent_id, owner_seam_id, started_at,
           state, outcome, settled_at, schema_version, policy)
         SELECT 'ask-' || i, 'key-' || i, $2::json, 'agent-' || (i % ${AGENTS}), 'seam',
           1700000000000 + i, 'settled', $3::json, 1700000000000 + i + 10, ${STORE_SCHEMA_VERSION},
           '{"approvals":2}'::json
         FROM generate_series(1, $1::int) AS i`,
        [size, questions, outcome],
      )
      for (const [offset, type] of [
        [1, 'presented'],
        [2, 'vote'],
      ] as const) {
        await client.query(
          `INSERT INTO askseam_ask_events (ask_id, at, type, by_id, by_json)
           SELECT ask_id, started_at + ${offset}, '${type}', 'ann', $1::json FROM askseam_asks`,
          [responder],
        )
      }
      await client.query(`INSERT INTO askseam_notifications (event_id, ask_id, ending, finished_at)
         SELECT ask_id || '.settled', ask_id, 'delivered', settled_at + 5 FROM askseam_asks`)
      await client.query('COMMIT')
      await client.query('ANALYZE')
    } finally {
      client.release()
    }
    return store
  }
  try {
    const small = await storeOf(SMALL)
    const big = await storeOf(PG_BIG)
    const [{ version }] = (await admin.query<{ version: string }>('SELECT version()')).rows as [
      { version: string },
    ]
    const rows = await compare('Postgres', small, big, [SMALL, PG_BIG])
    await small.close()
    await big.close()
    return [
      table(
        [
          'lookup',
          `${SMALL.toLocaleString('en')} asks`,
          `${PG_BIG.toLocaleString('en')} asks`,
          'ratio',
          'goal',
        ],
        rows,
      ),
      '',
      `${version.split(' on ')[0] ?? version}, on loopback.`,
    ].join('\n')
  } finally {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await admin.end()
    if (server.cluster !== undefined) {
      execFileSync('bash', [repoFile('scripts/postgres.sh'), 'down', server.cluster])
    }
  }
}

const sections = [
  '## History lookups',
  '',
  `Time per \`store.history(query)\` through the store (parse, digest and all), on a small and a big store in the same run: ${ROUNDS} alternating rounds of ${LOOKUPS} lookups each after ${WARM_UP} warm-up; the ratio is of the medians.`,
  '',
  await sqliteSection(),
  '',
  await postgresSection(),
]
console.log(sections.join('\n'))
