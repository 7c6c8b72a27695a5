/**
 * Postgres for tests: the server .ci/run started (ASKSEAM_POSTGRES_URL), a
 * fresh schema per test on it, and throwaway clusters of a test's own for
 * the tests that stop and restart a server.
 *
 * Without ASKSEAM_POSTGRES_URL the Postgres tests skip and say so; under CI
 * they fail instead, so a run that forgot the server cannot pass quietly.
 * Locally: `eval "$(scripts/postgres.sh up)"` first.
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'
import { describe, it } from 'vitest'

const run = promisify(execFile)
const script = fileURLToPath(new URL('../../scripts/postgres.sh', import.meta.url))

/** The shared test server, if any. */
export const postgresUrl: string | undefined = process.env.ASKSEAM_POSTGRES_URL || undefined
const underCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false'

/** Whether this machine can start a cluster of its own (initdb, pg_ctl). */
export function hasServerBinaries(): boolean {
  try {
    return readdirSync('/usr/lib/postgresql').some((version) =>
      existsSync(`/usr/lib/postgresql/${version}/bin/initdb`),
    )
  } catch {
    return false
  }
}

/**
 * `describe` for tests that need Postgres: runs with a server, skips (saying
 * which block and why, once) without one, fails under CI without one.
 * `needsBinaries`: the block starts clusters of its own.
 */
export function describePostgres(
  name: string,
  body: () => void,
  { needsBinaries = false }: { needsBinaries?: boolean } = {},
): void {
  const missing =
    postgresUrl === undefined
      ? 'ASKSEAM_POSTGRES_URL is not set (eval "$(scripts/postgres.sh up)")'
      : needsBinaries && !hasServerBinaries()
        ? 'no initdb/pg_ctl on this machine (apt-get install -y postgresql)'
        : undefined
  if (missing !== undefined && underCi) {
    describe(name, () => {
      it('has the Postgres server CI must provide', () => {
        throw new Error(`CI is set but ${missing}: the Postgres tests cannot be skipped under CI`)
      })
    })
    return
  }
  if (missing !== undefined) {
    console.warn(`[askseam] skipped, ${missing}: ${name}`)
  }
  describe.skipIf(missing !== undefined)(name, body)
}

let schemas = 0

/** A new, empty schema on the shared server, and a URL whose connections use it. */
export async function freshSchema(
  url = postgresUrl as string,
): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  schemas += 1
  const schema = `askseam_test_${process.pid}_${Date.now().toString(36)}_${schemas}`
  await withClient(url, (client) => client.query(`CREATE SCHEMA ${schema}`))
  return {
    url: withSearchPath(url, schema),
    schema,
    drop: async () => {
      await withClient(url, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`))
    },
  }
}

/**
 * A new database on the shared server, so that pg_stat_activity filtered by
 * `datname` shows only the connections of the test that made it.
 */
export async function freshDatabase(
  url = postgresUrl as string,
): Promise<{ url: string; drop(): Promise<void> }> {
  schemas += 1
  const name = `askseam_db_${process.pid}_${Date.now().toString(36)}_${schemas}`
  await withClient(url, (client) => client.query(`CREATE DATABASE ${name}`))
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return {
    url: parsed.toString(),
    drop: async () => {
      await withClient(url, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      )
    },
  }
}

/** The URL with `search_path` set for every connection opened with it. */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url)
  parsed.searchParams.set('options', `-c search_path=${schema}`)
  return parsed.toString()
}

/** Runs `use` on a connection of its own, closed afterwards. */
export async function withClient<T>(
  url: string,
  use: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

/** A throwaway cluster of the test's own (scripts/postgres.sh). */
export interface Cluster {
  url: string
  dir: string
  /** Stops the server, keeping its data. */
  stop(): Promise<void>
  /** Starts it again, on the same port. */
  start(): Promise<void>
  /** `pg_ctl restart -m fast`: every connection is cut. */
  restart(): Promise<void>
  /** Stops it and removes its directory. */
  destroy(): Promise<void>
}

export async function startCluster(): Promise<Cluster> {
  const { stdout } = await run('bash', [script, 'up'], { timeout: 120_000 })
  const value = (name: string): string => {
    const match = new RegExp(`${name}=(\\S+)`).exec(stdout)
    if (match?.[1] === undefined) throw new Error(`postgres.sh up printed no ${name}: ${stdout}`)
    return match[1]
  }
  const dir = value('ASKSEAM_POSTGRES_DIR')
  // pg_ctl detaches the server: a test process killed before its afterAll
  // (Stryker ends a timed-out test runner so) would leave it running. This
  // watchdog outlives the process and takes the cluster down after it. It
  // forks once more, so that killing the test process's tree (by parent id,
  // as Stryker does) does not reach it.
  const watchdog = spawn(
    'bash',
    [
      '-c',
      '(while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec bash "$2" down "$3") & echo $!',
      'askseam-cluster-watchdog',
      String(process.pid),
      script,
      dir,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
  )
  const watchdogPid = new Promise<number>((resolve) => {
    watchdog.stdout.once('data', (data: Buffer) => resolve(Number(String(data).trim())))
  })
  watchdog.unref()
  const step = (command: string) => async () => {
    await run('bash', [script, command, dir], { timeout: 120_000 })
  }
  return {
    url: value('ASKSEAM_POSTGRES_URL'),
    dir,
    stop: step('stop'),
    start: step('start'),
    restart: step('restart'),
    destroy: async () => {
      try {
        process.kill(await watchdogPid)
      } catch {
        // Gone already.
      }
      await step('down')()
    },
  }
}
