/**
 * The Postgres store's LISTEN connection (createListenConnection) over fake
 * clients, its time on XState's SimulatedClock: for its tests and its model.
 */
import type { Client } from 'pg'
import { createListenConnection } from '../../../src/stores/postgres/listen-connection.js'
import type { PostgresStoreEvent } from '../../../src/stores/postgres/index.js'
import type { SchemaFacts } from '../../../src/stores/postgres/schema.js'
import { recordingClock } from '../../support/clock.js'
import { CHANNEL, FakeConnection, settle } from './feed-fakes.js'

/**
 * A LISTEN connection over fakes, on a recording clock, and everything it
 * tells; `fresh` makes the connections no test queued in `upcoming`.
 */
export function listenOverFakes({
  aliveTimeoutMs = 10_000,
  fresh = () => new FakeConnection(),
}: { aliveTimeoutMs?: number; fresh?: () => FakeConnection } = {}) {
  const clock = recordingClock()
  const connections: FakeConnection[] = []
  /** Connections the next `newClient()` calls hand out; a fresh one after them. */
  const upcoming: FakeConnection[] = []
  /** What the next `ready()` calls do; a resolved schema after them. */
  const readies: (() => Promise<SchemaFacts>)[] = []
  const events: PostgresStoreEvent[] = []
  const notices: string[] = []
  let readyCalls = 0
  let listened = 0
  const connection = createListenConnection({
    ready: () => {
      readyCalls += 1
      return readies.shift()?.() ?? Promise.resolve({ schema: 'app', channel: CHANNEL })
    },
    newClient: () => {
      const next = upcoming.shift() ?? fresh()
      connections.push(next)
      return next as unknown as Client
    },
    report: (event) => events.push(event),
    listening: () => (listened += 1),
    notice: (payload) => notices.push(payload),
    aliveTimeoutMs,
    clock,
  })
  return {
    connection,
    clock,
    connections,
    upcoming,
    readies,
    events,
    notices,
    readyCalls: () => readyCalls,
    listened: () => listened,
    latest: (): FakeConnection => {
      const last = connections.at(-1)
      if (last === undefined) throw new Error('no connection was opened')
      return last
    },
    /** Starts it and lets its first attempt settle. */
    async started() {
      connection.start()
      await settle()
    },
  }
}
