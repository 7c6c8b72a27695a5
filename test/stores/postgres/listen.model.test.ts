/**
 * Model-based test of the Postgres store's LISTEN connection: paths generated
 * from listenMachine with xstate/graph drive the REAL createListenConnection
 * over fake clients whose every answer the path decides (the LISTEN, the
 * liveness check's SELECT 1), its time on a SimulatedClock. After every step
 * the connection must agree with the machine on the clients it opened and
 * left open, what it reported, the timers it holds, and whether a liveness
 * check is still waiting; and nothing an ended client says is heard.
 */
import { describe, expect, it } from 'vitest'
import { getNextSnapshot } from 'xstate'
import type { SnapshotFrom } from 'xstate'
import { TestModel } from 'xstate/graph'
import { SILENT, listenMachine } from '../../../src/stores/postgres/listen.machine.js'
import type { ListenEvent } from '../../../src/stores/postgres/listen.machine.js'
import type { PostgresStoreEvent } from '../../../src/stores/postgres/index.js'
import { FakeConnection, deferred, settle } from './feed-fakes.js'
import type { Deferred } from './feed-fakes.js'
import { listenOverFakes } from './listen-fakes.js'

type Snapshot = SnapshotFrom<typeof listenMachine>

const ALIVE_MS = 1_000
const OPENED = 'xstate.done.actor.open'
const FAILED = 'xstate.error.actor.open'
const ANSWERED = 'xstate.done.actor.ping'
const BROKEN = 'xstate.error.actor.ping'
const UNANSWERED = 'xstate.after.aliveTimeout.listen.listening.checking'
const BACKOFF = 'xstate.after.backoff.listen.retrying'
type ModelEvent =
  | Exclude<ListenEvent, { type: 'connection.lost' }>
  | { type: 'connection.lost'; error: Error }
  | { type: typeof OPENED | typeof ANSWERED; output: unknown }
  | { type: typeof FAILED | typeof BROKEN; error: Error }
  | { type: typeof UNANSWERED | typeof BACKOFF }

const gone = new Error('gone')
const refused = new Error('LISTEN failed')
const broken = new Error('SELECT 1 failed')

/** What a test can cause in each state: start and stop anywhere, and what is in flight there. */
function eventsFor(snapshot: Snapshot): ModelEvent[] {
  const events: ModelEvent[] = [{ type: 'start' }, { type: 'stop' }]
  if (snapshot.matches('opening')) {
    events.push({ type: OPENED, output: {} }, { type: FAILED, error: refused })
  }
  if (snapshot.matches('listening')) events.push({ type: 'connection.lost', error: gone })
  if (snapshot.matches({ listening: 'idle' })) events.push({ type: 'alive.check' })
  if (snapshot.matches({ listening: 'checking' })) {
    events.push(
      { type: ANSWERED, output: undefined },
      { type: BROKEN, error: broken },
      {
        type: UNANSWERED,
      },
    )
  }
  if (snapshot.matches('retrying')) events.push({ type: BACKOFF })
  return events
}

const serializeState = (snapshot: Snapshot) =>
  JSON.stringify([snapshot.value, snapshot.context.retryMs, snapshot.context.everConnected])
const serializeEvent = (event: ModelEvent) => event.type

/** A connection whose LISTEN and SELECT 1 wait for the path to answer them. */
class HeldConnection extends FakeConnection {
  readonly listen = deferred<unknown>()
  readonly pingsHeld: Deferred<unknown>[] = []
  constructor() {
    super()
    this.listens = () => this.listen.promise
    this.pings = () => {
      const held = deferred<unknown>()
      this.pingsHeld.push(held)
      return held.promise
    }
  }
}

class World {
  readonly h = listenOverFakes({ aliveTimeoutMs: ALIVE_MS, fresh: () => new HeldConnection() })
  /** The liveness check in flight, and whether it returned. */
  check: { returned: boolean } | undefined

  get latest(): HeldConnection {
    return this.h.latest() as HeldConnection
  }

  async perform(event: ModelEvent, before: Snapshot): Promise<void> {
    const { connection, clock } = this.h
    switch (event.type) {
      case 'start':
        connection.start()
        break
      case 'stop':
        await connection.stop()
        break
      case OPENED:
        this.latest.listen.resolve({ rows: [] })
        break
      case FAILED:
        this.latest.listen.reject(event.error)
        break
      case 'connection.lost':
        this.latest.lose(event.error)
        break
      case 'alive.check': {
        const check = { returned: false }
        this.check = check
        void connection.checkAlive().then(() => (check.returned = true))
        break
      }
      case ANSWERED:
        this.latest.pingsHeld.at(-1)!.resolve({ rows: [] })
        break
      case BROKEN:
        this.latest.pingsHeld.at(-1)!.reject(event.error)
        break
      case UNANSWERED:
        return clock.advance(ALIVE_MS)
      case BACKOFF:
        return clock.advance(before.context.retryMs)
    }
    await settle()
  }
}

/** What the connection reports on this step, as the machine has it. */
function reportsOf(before: Snapshot, event: ModelEvent, after: Snapshot): PostgresStoreEvent[] {
  const wanted = before.matches({ opening: 'wanted' })
  if (event.type === OPENED && wanted) {
    return [{ type: 'listener.connected', reconnect: before.context.everConnected }]
  }
  if (event.type === FAILED && wanted) return [{ type: 'listener.failed', error: event.error }]
  if (before.matches('listening') && after.matches('retrying')) {
    const error = 'error' in event ? event.error : new Error(SILENT)
    return [{ type: 'listener.lost', error }]
  }
  return []
}

/**
 * Every transition: the shortest path to each state (its context too: the
 * backoff's wait, whether a connection came up), then each event a test can
 * cause there.
 */
function transitionPaths(): { event: ModelEvent; state: Snapshot }[][] {
  const model = new TestModel(listenMachine as never, {
    events: eventsFor as never,
    serializeState: serializeState as never,
    serializeEvent: serializeEvent as never,
    input: { aliveTimeoutMs: ALIVE_MS },
  })
  const unique = new Map<string, { event: ModelEvent; state: Snapshot }[]>()
  // The model drops a path that is the start of another: every prefix is extended.
  for (const path of model.getShortestPaths()) {
    const steps = path.steps as unknown as { event: ModelEvent; state: Snapshot }[]
    steps.forEach(({ state }, index) => {
      for (const event of eventsFor(state)) {
        const extended = [
          ...steps.slice(0, index + 1),
          { event, state: getNextSnapshot(listenMachine, state, event as never) },
        ]
        unique.set(extended.map((step) => serializeEvent(step.event)).join(' '), extended)
      }
    })
  }
  return [...unique.values()]
}

describe('listenMachine paths drive the LISTEN connection', () => {
  const paths = transitionPaths()

  it(`${paths.length} paths`, async () => {
    const seen = new Set<string>()
    for (const path of paths) {
      const world = new World()
      const { h } = world
      let before: Snapshot | undefined
      for (const { event, state } of path) {
        const opened = h.connections.length
        const reported = h.events.length
        const listened = h.listened()
        if (before !== undefined) await world.perform(event, before)
        const where = `${path.map((step) => serializeEvent(step.event)).join(' → ')} at ${event.type}`
        seen.add(JSON.stringify(state.value))

        const entered =
          state.matches('opening') &&
          before !== undefined &&
          (before.matches('stopped') || before.matches('retrying'))
        expect(h.connections.length - opened, where).toBe(entered ? 1 : 0)
        const reports = before === undefined ? [] : reportsOf(before, event, state)
        expect(h.events.slice(reported), where).toEqual(reports)
        const connected = reports.filter((report) => report.type === 'listener.connected').length
        expect(h.listened() - listened, where).toBe(connected)
        // One client open while opening or listening, none otherwise: every other one was ended.
        const open = h.connections.filter((connection) => !connection.ended)
        const live = state.matches('opening') || state.matches('listening')
        expect(open.length, where).toBe(live ? 1 : 0)
        // The timer of the state, and no other.
        const armed = [...h.clock.armed.values()].map(({ delay }) => delay)
        if (state.matches('retrying')) expect(armed, where).toEqual([state.context.retryMs])
        else if (state.matches({ listening: 'checking' })) expect(armed, where).toEqual([ALIVE_MS])
        else expect(armed, where).toEqual([])
        // A liveness check returns once the connection is no longer being checked.
        if (world.check !== undefined) {
          expect(world.check.returned, where).toBe(!state.matches({ listening: 'checking' }))
        }
        // An ended client is never heard again: not its notifications, not its loss.
        const ended = h.connections.filter((connection) => connection.ended)
        const told = [h.events.length, h.notices.length, h.connections.length]
        for (const connection of ended) {
          connection.notify('admitted:late')
          connection.emit('error', new Error('late'))
          connection.emit('end')
        }
        await settle()
        expect([h.events.length, h.notices.length, h.connections.length], where).toEqual(told)
        before = state
      }
      await h.connection.stop()
    }
    expect([...seen].sort()).toEqual([
      '"retrying"',
      '"stopped"',
      '{"listening":"checking"}',
      '{"listening":"idle"}',
      '{"opening":"abandoned"}',
      '{"opening":"wanted"}',
    ])
  })
})
