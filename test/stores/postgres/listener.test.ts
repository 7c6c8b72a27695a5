/**
 * A Postgres store whose LISTEN connection the server ends (an operator's
 * pg_terminate_backend, a pooler recycling it) while another process
 * settles an ask: the store reconnects, says so, resyncs, and the settlement
 * still reaches whoever waits for it. The cut and the settle run in a child
 * process while this one is blocked, so the settle surely commits while the
 * connection is down.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, it } from 'vitest'
import { createUserQuestions } from '../../../src/protocol/index.js'
import type { UserQuestions } from '../../../src/protocol/index.js'
import type { AskRecord, AskStore, StoreChange } from '../../../src/protocol/store/index.js'
import { createPostgresStore } from '../../../src/stores/postgres/index.js'
import type {
  PostgresStoreEvent,
  PostgresStoreOptions,
} from '../../../src/stores/postgres/index.js'
import { createControllableProvider } from '../../support/controllable-provider.js'
import { describePostgres, freshDatabase, withClient } from '../../support/postgres.js'
import { answered, newAsk } from '../store-contract.js'

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function database() {
  const fresh = await freshDatabase()
  cleanups.push(fresh.drop)
  const open = (options: Omit<PostgresStoreOptions, 'connectionString'> = {}): AskStore => {
    const store = createPostgresStore({ connectionString: fresh.url, ...options })
    cleanups.push(() => store.close())
    return store
  }
  /** The backends of the LISTEN connections on this database. */
  const listeners = () =>
    withClient(fresh.url, async (client) => {
      const { rows } = await client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'askseam-listener'`,
      )
      return rows.map((row) => row.pid)
    })
  /**
   * In another process, with this one blocked until it is done: ends the
   * backend `pid`, waits until it is gone, and settles `askId` answered.
   */
  const cutAndSettle = (pid: number, askId: string): AskRecord => {
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', CHILD, fresh.url, 'cut-and-settle', `${pid}:${askId}`],
      { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    return (JSON.parse(out.trim()) as { settled: AskRecord }).settled
  }
  return { url: fresh.url, open, listeners, cutAndSettle }
}

/** Resolves with what `look` finds once it finds something. */
async function until<T>(
  look: () => T | false | Promise<T | false>,
  what: string,
  limitMs = 20_000,
): Promise<T> {
  const end = Date.now() + limitMs
  for (;;) {
    const found = await look()
    if (found !== false) return found
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const lost = expect.objectContaining({ type: 'listener.lost' })

describePostgres('a postgres store whose LISTEN connection is cut', () => {
  it('reconnects, resyncs, and tells its watcher of a settle committed while it was down', async () => {
    const db = await database()
    const events: PostgresStoreEvent[] = []
    const store = db.open({ pollIntervalMs: 100, onEvent: (event) => events.push(event) })
    const ask = newAsk()
    await store.admit(ask)
    const changes: StoreChange[] = []
    store.watch((change) => changes.push(change))
    const [pid] = await until(async () => {
      const pids = await db.listeners()
      return pids.length === 1 && events.length === 1 && pids
    }, 'the listener')
    // A few polls, so the poll knows where the revisions stood before the settle.
    await new Promise((resolve) => setTimeout(resolve, 300))
    changes.length = 0

    const settled = db.cutAndSettle(pid!, ask.askId)
    expect(settled).toEqual({ ...ask, state: 'settled', outcome: answered, settledAt: 4_242 })
    await until(() => events.length >= 3, 'the reconnect')
    await until(() => changes.some((c) => c.type === 'ask.settled'), 'the settlement')
    expect(events).toEqual([
      { type: 'listener.connected', reconnect: false },
      lost,
      { type: 'listener.connected', reconnect: true },
    ])
    expect(String((events[1] as { error: unknown }).error)).toMatch(/administrator command/)
    expect(changes).toContainEqual({ type: 'resync' })
    // The settle's notification went to the dead connection: the poll tells it, once.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(changes.filter((c) => c.type === 'ask.settled')).toEqual([
      { type: 'ask.settled', record: settled },
    ])
    const [again] = await db.listeners()
    expect(again).not.toBe(pid)
  }, 60_000)

  it('gives a caller the answer another process committed while its seam’s store was not listening', async () => {
    const db = await database()
    // A console seam whose human has not answered yet.
    const consoleStore = db.open()
    const seams: UserQuestions[] = []
    cleanups.push(async () => {
      for (const seam of seams) await seam.close()
    })
    const console_ = createUserQuestions({ store: consoleStore })
    seams.push(console_)
    const human = createControllableProvider()
    console_.registerProvider(human)
    await until(
      async () => (await consoleStore.leases(Date.now())).some((lease) => lease.providerActive),
      'the console’s lease',
    )
    const [consoleListener] = await until(async () => {
      const pids = await db.listeners()
      return pids.length === 1 && pids
    }, 'the console’s listener')

    // The worker polls too seldom to matter: only the resync can bring the answer.
    const events: PostgresStoreEvent[] = []
    const workerStore = db.open({ pollIntervalMs: 600_000, onEvent: (event) => events.push(event) })
    const heard: StoreChange[] = []
    workerStore.watch((change) => heard.push(change))
    const worker = createUserQuestions({ store: workerStore })
    seams.push(worker)
    await until(() => events.length === 1, 'the worker’s listener')
    const workerListener = (await db.listeners()).find((pid) => pid !== consoleListener)
    const asked = worker.ask({ questions: newAsk().questions })
    const call = await human.call(0)
    // Admitted, the worker's machine waiting on the console, and the
    // admission's own notification read: nothing about the ask in flight.
    await until(() => worker.pending()[0]?.state === 'presenting', 'the worker’s machine')
    await until(
      () => heard.some((c) => c.type === 'ask.admitted' && c.record.askId === call.request.askId),
      'the worker’s notification of the admission',
    )

    db.cutAndSettle(workerListener!, call.request.askId)

    await expect(asked).resolves.toEqual({ answers: [{ id: 'db', selected: ['SQLite'] }] })
    expect(events).toEqual([
      { type: 'listener.connected', reconnect: false },
      lost,
      { type: 'listener.connected', reconnect: true },
    ])
  }, 60_000)
})
