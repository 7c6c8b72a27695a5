/**
 * `npm test` runs every test, Postgres included: when ASKSEAM_POSTGRES_URL
 * is not set and the server binaries are installed, this starts a throwaway
 * cluster (scripts/postgres.sh) for the run and removes it afterwards, as
 * `.ci/run` does. Where the binaries are missing, the run goes on without
 * it and its last lines say which tests could not run and why
 * (skipped-reporter.ts); under CI those tests fail instead (postgres.ts).
 */
import { readFile } from 'node:fs/promises'
import type { TestProject } from 'vitest/node'
import { startCluster } from './postgres.js'

/** Set for the reporter when the run has no Postgres: why. */
export const MISSING_POSTGRES = 'ASKSEAM_POSTGRES_MISSING'

/** Whether the files this run selected include a Postgres test (a whole-suite run always does). */
async function needsPostgres(project: TestProject): Promise<boolean> {
  try {
    // Not in the typings: the file filters of `vitest run FILTER…`, undefined for the whole suite.
    const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern
    if (filters === undefined) return true
    const specifications = await project.vitest.globTestSpecifications(filters)
    const sources = await Promise.all(
      specifications.map(({ moduleId }) => readFile(moduleId, 'utf8')),
    )
    return sources.some((source) => /support\/(postgres|dialects)\.js/.test(source))
  } catch {
    return true // when in doubt, the server: a skipped test is worse than a few seconds
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  if (process.env.ASKSEAM_POSTGRES_URL) return
  if (!(await needsPostgres(project))) return
  let cluster: Awaited<ReturnType<typeof startCluster>>
  try {
    cluster = await startCluster()
  } catch (error: unknown) {
    const message = error instanceof Error ? error.message : String(error)
    process.env[MISSING_POSTGRES] = /no initdb found/.test(message)
      ? 'no Postgres server binaries on this machine (initdb, pg_ctl)'
      : `the throwaway Postgres server did not start: ${message.split('\n').slice(-2).join(' ')}`
    return
  }
  // Test files run in workers started after this, which inherit the environment.
  process.env.ASKSEAM_POSTGRES_URL = cluster.url
  process.env.ASKSEAM_POSTGRES_DIR = cluster.dir
  return () => cluster.destroy()
}
