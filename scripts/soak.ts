/**
 * Soak: many processes on one store, one of them SIGKILLed every one to three
 * seconds, and a check from the rows that nothing was lost, settled twice,
 * left stuck or answered past its deadline (DESIGN §10). See docs/soak.md.
 *
 *   npm run soak                                   # Postgres 10,000 asks, then SQLite 3,000
 *   npm run soak -- --store sqlite --asks 500      # a short run
 *
 * Options: --store postgres|sqlite|both (default both), --asks N (default
 * 10,000 on Postgres, 3,000 on SQLite), --concurrency N (asks each asker keeps
 * in flight, default 8), --busy-timeout MS (the SQLite store's, default 1000),
 * --time-limit S (asking phase, default 1800). Postgres: ASKSEAM_POSTGRES_URL
 * if set (a database of the soak's own is created on it and dropped after a
 * clean run), else a throwaway cluster from scripts/postgres.sh.
 * Exits 1 on any violation.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { freshDatabase, startCluster } from '../test/support/postgres.js'
import { judge, violationsOf } from './soak/check.js'
import type { Verdict } from './soak/check.js'
import { preparePostgres, prepareSqlite } from './soak/database.js'
import type { SoakDatabase } from './soak/database.js'
import { readLog } from './soak/plan.js'
import { runFleet } from './soak/fleet.js'
import type { FleetReport } from './soak/fleet.js'

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'both' },
    asks: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    'busy-timeout': { type: 'string', default: '1000' },
    'time-limit': { type: 'string', default: '1800' },
  },
})
if (!['postgres', 'sqlite', 'both'].includes(values.store)) {
  throw new Error(`--store must be postgres, sqlite or both, not ${values.store}`)
}

interface Run {
  dialect: 'postgres' | 'sqlite'
  asks: number
  fleet: FleetReport
  verdict: Verdict
}

const isClean = (run: Run): boolean =>
  run.fleet.crashes.length === 0 && violationsOf(run.verdict).every(([, n]) => n === 0)

async function soak(
  dialect: 'postgres' | 'sqlite',
  asks: number,
  location: string,
  database: SoakDatabase,
  logs: string,
): Promise<Run> {
  console.log(`\n[soak] ${dialect}: ${asks} keyed asks, 4 askers, 2 answerers`)
  const fleet = await runFleet({
    dialect,
    location,
    asks,
    logs,
    database,
    concurrency: Number(values.concurrency),
    busyTimeoutMs: Number(values['busy-timeout']),
    timeLimitMs: Number(values['time-limit']) * 1000,
  })
  const logged = fleet.logs.flatMap((path) => readLog(path))
  const verdict = judge(asks, await database.rows(), await database.settles(), logged)
  return { dialect, asks, fleet, verdict }
}

async function soakPostgres(asks: number): Promise<Run> {
  const given = process.env.ASKSEAM_POSTGRES_URL || undefined
  const cluster = given === undefined ? await startCluster() : undefined
  const created = await freshDatabase(given ?? cluster?.url)
  const logs = mkdtempSync(join(tmpdir(), 'askseam-soak-'))
  let clean = false
  try {
    const database = await preparePostgres(created.url)
    try {
      const run = await soak('postgres', asks, created.url, database, logs)
      clean = isClean(run)
      return run
    } finally {
      await database.close()
    }
  } finally {
    // A throwaway cluster goes whatever happened; a database on a server you gave stays after a failure.
    if (clean || cluster !== undefined) await created.drop()
    else console.log(`[soak] kept for inspection: ${created.url}`)
    if (clean) rmSync(logs, { recursive: true, force: true })
    else console.log(`[soak] the askers' logs: ${logs}`)
    await cluster?.destroy()
  }
}

async function soakSqlite(asks: number): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'askseam-soak-'))
  const path = join(dir, 'asks.db')
  let clean = false
  try {
    const database = await prepareSqlite(path)
    try {
      const run = await soak('sqlite', asks, path, database, dir)
      clean = isClean(run)
      return run
    } finally {
      await database.close()
    }
  } finally {
    if (clean) rmSync(dir, { recursive: true, force: true })
    else console.log(`[soak] kept for inspection: ${dir}`)
  }
}

function table(runs: Run[]): string {
  const header = ['', ...runs.map((run) => run.dialect)]
  const line = (name: string, cell: (run: Run) => string | number) => [
    name,
    ...runs.map((run) => String(cell(run))),
  ]
  const codes = [...new Set(runs.flatMap((run) => [...run.verdict.endings.keys()]))].sort()
  const retried = [...new Set(runs.flatMap((run) => [...run.verdict.retried.keys()]))].sort()
  const body = [
    line('keyed asks', (run) => run.asks),
    line('duration (s)', (run) => (run.fleet.durationMs / 1000).toFixed(1)),
    line('asking phase (s)', (run) => (run.fleet.askingMs / 1000).toFixed(1)),
    line('SIGKILLs: askers', (run) => run.fleet.kills.asker),
    line('SIGKILLs: answerers', (run) => run.fleet.kills.answerer),
    line('write lock held past busy timeout', (run) => run.fleet.lockHolds),
    line('rows', (run) => run.verdict.rows),
    line('settlements (audit trigger)', (run) => run.verdict.settleEvents),
    ...codes.map((code) => line(`  ended ${code}`, (run) => run.verdict.endings.get(code) ?? 0)),
    ...retried.map((code) =>
      line(`  caller got ${code}, asked again`, (run) => run.verdict.retried.get(code) ?? 0),
    ),
    line('explained (gave up on a key)', (run) => run.verdict.explained.length),
    line('✗ processes that crashed', (run) => run.fleet.crashes.length),
    ...violationsOf(runs[0]?.verdict as Verdict).map(([name], i) =>
      line(`✗ ${name}`, (run) => violationsOf(run.verdict)[i]?.[1] ?? 0),
    ),
  ]
  const rows = [header, ...body]
  const widths = header.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)))
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  '),
    )
    .join('\n')
}

const started = new Date()
const runs: Run[] = []
if (values.store !== 'sqlite') runs.push(await soakPostgres(Number(values.asks ?? 10_000)))
if (values.store !== 'postgres') runs.push(await soakSqlite(Number(values.asks ?? 3_000)))

console.log(`\n[soak] started ${started.toISOString()}, finished ${new Date().toISOString()}\n`)
console.log(table(runs))
let failed = false
for (const run of runs) {
  const { lost, settledTwice, callerDisagrees, stuck, lateAnswers, lateCommits } = run.verdict
  const { crashes } = run.fleet
  const examples = { crashes, lost, settledTwice, callerDisagrees, stuck, lateAnswers, lateCommits }
  for (const [name, list] of Object.entries(examples)) {
    if (list.length === 0) continue
    failed = true
    console.log(`\n[soak] ${run.dialect} ${name}: ${JSON.stringify(list.slice(0, 5), null, 1)}`)
  }
}
console.log(failed ? '\n[soak] FAILED' : '\n[soak] passed: no violation')
process.exit(failed ? 1 : 0)
