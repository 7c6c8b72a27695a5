import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { freshSchema } from '../support/postgres.js'
import { settle } from '../support/settle.js'
import type { RunStore } from './run-store.js'

/** How long a run waits for the store to get quiet before it fails. */
const QUIET_WITHIN_MS = 10_000

/**
 * The store of a seam property run on Postgres: a fresh schema on the test
 * server, and a `settle` that waits for real I/O, which the fake clock does
 * not. The seams are quiet when no statement is in flight on the store's
 * pool, a round of {@link settle} starts none, and the change feed has told
 * the watchers of every row as it is now (rows are read on a connection of
 * the test's own), with no statement started while that was read.
 * Bounded: a store that never gets quiet fails the run.
 */
export async function postgresRunStore(): Promise<RunStore> {
  const schema = await freshSchema()
  // No idle timeout: it would be a timer of the fake clock, left armed at the end of the run.
  const pool = new pg.Pool({ connectionString: schema.url, idleTimeoutMillis: 0 })
  pool.on('error', () => {})
  let acquired = 0
  pool.on('acquire', () => (acquired += 1))
  // A backstop poll would only be time the fake clock skips: nothing is lost on loopback.
  const store = createPostgresStore({ pool, pollIntervalMs: 3_600_000 })
  await store.pending() // the store's tables exist from here on
  const reader = new pg.Client({ connectionString: schema.url })
  await reader.connect()
  const rows = async () =>
    (
      await reader.query<{ ask_id: string; state: string }>(
        'SELECT ask_id, state FROM askseam_asks',
      )
    ).rows
  /** Each ask's state as the change feed last told it. */
  const told = new Map<string, string>()
  let listening!: () => void
  const listens = new Promise<void>((resolve) => (listening = resolve))
  const unwatch = store.watch((change) => {
    if (change.type === 'ask.admitted' || change.type === 'ask.settled') {
      told.set(change.record.askId, change.record.state)
    } else if (change.type === 'resync') {
      // The LISTEN took effect (the first time, or again): the seams reread
      // every pending ask now, so they know each row as it stands.
      listening()
      void rows().then((all) => all.forEach((row) => told.set(row.ask_id, row.state)))
    }
  })
  // Asked before the LISTEN takes effect, an ask would be known only through a resync.
  await listens
  const busy = () => pool.totalCount - pool.idleCount + pool.waitingCount > 0
  const feedHasTold = async () => (await rows()).every((row) => told.get(row.ask_id) === row.state)
  return {
    store,
    async settle() {
      const until = performance.now() + QUIET_WITHIN_MS
      for (;;) {
        const before = acquired
        await settle()
        const quiet = () => !busy() && acquired === before
        if (quiet() && (await feedHasTold())) {
          // What the feed told during that read may have set the seams to work.
          await settle()
          if (quiet()) return
        }
        if (performance.now() > until) {
          throw new Error(`the Postgres store did not get quiet within ${QUIET_WITHIN_MS} ms`)
        }
      }
    },
    release: unwatch,
    async dispose() {
      unwatch()
      await store.close()
      await pool.end()
      await reader.end()
      await schema.drop()
    },
  }
}
