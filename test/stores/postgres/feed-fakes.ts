/**
 * Fakes for driving the Postgres change feed without a server: a LISTEN
 * connection whose every answer a test controls, and a pool over a small
 * table of asks that answers the four statements the feed runs, checking
 * their parameters as the server would.
 */
import { EventEmitter } from 'node:events'
import type { Client } from 'pg'
import { afterEach, beforeEach, vi } from 'vitest'
import type { CorruptRowError, StoreChange } from '../../../src/protocol/store/index.js'
import type { PostgresStoreEvent } from '../../../src/stores/postgres/index.js'
import { createChangeFeed } from '../../../src/stores/postgres/change-feed.js'
import type { AskRow } from '../../../src/stores/postgres/rows.js'
import type { SchemaFacts } from '../../../src/stores/postgres/schema.js'
import { answered, newAsk } from '../store-contract.js'
import { deferred } from '../../support/deferred.js'
import type { Deferred } from '../../support/deferred.js'
import { settle } from '../../support/settle.js'

export const CHANNEL = 'askseam:app'

// The feed tests take these from here, beside the fakes they drive.
export { deferred }
export type { Deferred }

/** A promise that never settles: a server that never answers. */
export const never = <T>(): Promise<T> => new Promise<T>(() => undefined)

// The feed tests take the one settle helper from here, beside the fakes it drives.
export { settle }

/** The LISTEN connection, as the feed uses a `pg.Client`. */
export class FakeConnection extends EventEmitter {
  readonly statements: string[] = []
  ended = false
  /** What `connect()` does. */
  opens: () => Promise<void> = () => Promise.resolve()
  /** What `LISTEN ...` does. */
  listens: () => Promise<unknown> = () => Promise.resolve({ rows: [] })
  /** What the liveness check's `SELECT 1` does. */
  pings: () => Promise<unknown> = () => Promise.resolve({ rows: [{ '?column?': '1' }] })

  connect(): Promise<void> {
    return this.opens()
  }

  query(text: string): Promise<unknown> {
    this.statements.push(text)
    if (this.ended) return Promise.reject(new Error('Client was closed and is not queryable'))
    if (text === 'SELECT 1') return this.pings()
    if (text.startsWith('LISTEN ')) return this.listens()
    return Promise.reject(new Error(`the LISTEN connection got ${text}`))
  }

  /** As pg's: the connection closes, then says 'end'. */
  end(): Promise<void> {
    if (!this.ended) {
      this.ended = true
      queueMicrotask(() => this.emit('end'))
    }
    return Promise.resolve()
  }

  /** A NOTIFY reaching this connection. */
  notify(payload: string | undefined, channel = CHANNEL): void {
    this.emit('notification', { processId: 1, channel, payload })
  }

  /** The server going away under it: pg says 'error', then 'end'. */
  lose(error: Error): void {
    this.emit('error', error)
    void this.end()
  }
}

export type StatementKind = 'max' | 'poll' | 'read' | 'leases'

function kindOf(text: string): StatementKind {
  if (text.includes('max(revision)')) return 'max'
  if (text.includes('WHERE revision > $1 ORDER BY revision LIMIT $2')) return 'poll'
  if (text.includes('WHERE ask_id = ANY($1::text[])')) return 'read'
  if (text.includes('FROM askseam_leases')) return 'leases'
  throw new Error(`the pool got a statement it does not know: ${text}`)
}

/** The askseam_asks and askseam_leases tables, as the feed reads them through the pool. */
export class FakeDatabase {
  readonly calls: { kind: StatementKind; values: unknown[] }[] = []
  /** What `string_agg` over the leases gives. */
  leases: string | null = null
  private readonly rows = new Map<string, AskRow>()
  private revision = 0
  private readonly gates = new Map<StatementKind, (() => Promise<void>)[]>()

  /**
   * Writes an ask at the next revision (or at `revision`: one drawn earlier
   * and committed only now) and returns that revision. No NOTIFY: a test
   * sends one itself where it wants one.
   */
  write(
    askId: string,
    state: 'pending' | 'settled' = 'pending',
    { revision, schemaVersion = '1' }: { revision?: number; schemaVersion?: string } = {},
  ): number {
    const drawn = revision ?? (this.revision += 1)
    this.revision = Math.max(this.revision, drawn)
    this.rows.set(askId, askRow(askId, drawn, state, schemaVersion))
    return drawn
  }

  /** The next statement of this kind waits for the returned gate (and fails if it rejects). */
  hold(kind: StatementKind): Deferred<void> {
    const gate = deferred()
    this.before(kind, () => gate.promise)
    return gate
  }

  /** The next statement of this kind fails with `error`. */
  fail(kind: StatementKind, error: Error): void {
    this.before(kind, () => Promise.reject(error))
  }

  private before(kind: StatementKind, gate: () => Promise<void>): void {
    const queue = this.gates.get(kind) ?? []
    queue.push(gate)
    this.gates.set(kind, queue)
  }

  valuesOf(kind: StatementKind): unknown[][] {
    return this.calls.filter((call) => call.kind === kind).map((call) => call.values)
  }

  async query<TRow>(text: string, values: unknown[]): Promise<TRow[]> {
    const kind = kindOf(text)
    this.calls.push({ kind, values })
    // As the server: a bind message must supply exactly the parameters named.
    const named = new Set(text.match(/\$\d+/g)).size
    if (values.length !== named) {
      throw new Error(`bind message supplies ${values.length} parameters, ${named} named`)
    }
    const gate = this.gates.get(kind)?.shift()
    if (gate !== undefined) await gate()
    return this.answer(kind, values) as TRow[]
  }

  private answer(kind: StatementKind, values: unknown[]): unknown[] {
    const byRevision = [...this.rows.values()].sort(
      (a, b) => Number(a.revision) - Number(b.revision),
    )
    switch (kind) {
      case 'max': {
        const top = byRevision.at(-1)
        return [{ revision: top === undefined ? null : top.revision }]
      }
      case 'poll': {
        const [floor, limit] = values as [number, number]
        if (!Number.isSafeInteger(floor)) {
          throw new Error(`invalid input syntax for type bigint: "${String(floor)}"`)
        }
        return byRevision.filter((row) => Number(row.revision) > floor).slice(0, limit)
      }
      case 'read': {
        const [ids] = values as [string[]]
        return byRevision.filter((row) => ids.includes(row.ask_id as string))
      }
      case 'leases':
        return [{ leases: this.leases }]
    }
  }
}

export function askRow(
  askId: string,
  revision: number,
  state: 'pending' | 'settled',
  schemaVersion = '1',
): AskRow {
  return {
    ask_id: askId,
    ask_key: null,
    questions: JSON.stringify(newAsk().questions),
    agent_id: null,
    owner_seam_id: 'seam-a',
    started_at: '1',
    deadline: null,
    trace_context: null,
    policy: null,
    state,
    outcome: state === 'settled' ? JSON.stringify(answered) : null,
    settled_at: state === 'settled' ? '2' : null,
    schema_version: schemaVersion,
    revision: String(revision),
  }
}

/** A change as a short line: its type, and the ask it is about. */
export const label = (change: StoreChange): string =>
  'record' in change ? `${change.type} ${change.record.askId}` : change.type

/** A change feed over the fakes, and everything it tells. */
export function feedOverFakes({ pollIntervalMs = 1_000 }: { pollIntervalMs?: number } = {}) {
  const db = new FakeDatabase()
  const connections: FakeConnection[] = []
  /** Connections the next `newClient()` calls hand out; a plain one after them. */
  const upcoming: FakeConnection[] = []
  /** What the next `ready()` calls do; a resolved schema after them. */
  const readies: (() => Promise<SchemaFacts>)[] = []
  const changes: StoreChange[] = []
  const events: PostgresStoreEvent[] = []
  const corrupt: CorruptRowError[] = []
  let readyCalls = 0
  const feed = createChangeFeed({
    ready: () => {
      readyCalls += 1
      return readies.shift()?.() ?? Promise.resolve({ schema: 'app', channel: CHANNEL })
    },
    query: (text, values) => db.query(text, values),
    newClient: () => {
      const connection = upcoming.shift() ?? new FakeConnection()
      connections.push(connection)
      // The feed uses connect, query, end and the events of a Client: the
      // fake has those, and not the rest of pg's API.
      return connection as unknown as Client
    },
    emit: (change) => changes.push(change),
    report: (event) => events.push(event),
    corrupt: (error) => corrupt.push(error),
    pollIntervalMs,
  })
  return {
    feed,
    db,
    connections,
    upcoming,
    readies,
    changes,
    events,
    corrupt,
    readyCalls: () => readyCalls,
    labels: () => changes.map(label),
    /** The connection the feed opened last. */
    latest: (): FakeConnection => {
      const last = connections.at(-1)
      if (last === undefined) throw new Error('the feed opened no connection')
      return last
    },
    /** Starts the feed and lets its first connection come up. */
    async started() {
      feed.start()
      await settle()
    },
    /** Lets one poll interval pass. */
    poll: () => vi.advanceTimersByTimeAsync(pollIntervalMs),
    /**
     * Holds the poll's `kind` statement, lets the poll start it, stops the
     * feed, and only then has the held statement `answer` (resolve or reject).
     */
    async stopMidPoll(kind: StatementKind, answer: (held: Deferred<void>) => void) {
      const held = db.hold(kind)
      await vi.advanceTimersByTimeAsync(pollIntervalMs)
      await feed.stop()
      answer(held)
      await settle()
    },
  }
}

/** A `ready()` that fails as a server that is down does. */
export const downAnswer = (error: Error) => (): Promise<SchemaFacts> => Promise.reject(error)

/** The event of a connection coming up. */
export const connected = (reconnect: boolean) => ({ type: 'listener.connected', reconnect })

/**
 * Fake timers for each test of the file, and a maker of feeds over the fakes
 * that stops each one when its test ends.
 */
export function useFakeFeeds() {
  const made: ReturnType<typeof feedOverFakes>[] = []
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(async () => {
    for (const each of made.splice(0)) await each.feed.stop()
    vi.useRealTimers()
  })
  return (options?: Parameters<typeof feedOverFakes>[0]) => {
    const feed = feedOverFakes(options)
    made.push(feed)
    return feed
  }
}
