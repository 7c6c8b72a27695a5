/**
 * The Postgres store's LISTEN connection (listen.machine.ts, run by
 * createListenConnection) over fake clients, its time on XState's
 * SimulatedClock: the reconnect backoff doubling to its cap and starting
 * over after a success, stop() while it opens, waits or listens, a loss
 * while listening, the liveness check, and start() while running.
 */
import type { Client } from 'pg'
import { describe, expect, it } from 'vitest'
import { SimulatedClock, createActor, fromPromise } from 'xstate'
import {
  FIRST_RETRY_MS,
  MAX_RETRY_MS,
  SILENT,
  listenMachine,
} from '../../../src/stores/postgres/listen.machine.js'
import type { SchemaFacts } from '../../../src/stores/postgres/schema.js'
import { CHANNEL, FakeConnection, deferred, never, settle } from './feed-fakes.js'
import { listenOverFakes } from './listen-fakes.js'

const down = (error: Error) => () => Promise.reject<SchemaFacts>(error)
const connected = (reconnect: boolean) => ({ type: 'listener.connected', reconnect })
const failing = () => {
  const connection = new FakeConnection()
  connection.opens = () => Promise.reject(new Error('refused'))
  return connection
}

describe('the LISTEN connection’s backoff', () => {
  it('waits 50ms after a failure, doubling up to 5s, and opens no client meanwhile', async () => {
    const h = listenOverFakes()
    const refused = new Error('connect ECONNREFUSED')
    for (let i = 0; i < 10; i += 1) h.readies.push(down(refused))
    await h.started()
    const waits = [50, 100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000]
    for (const wait of waits) {
      const before = h.readyCalls()
      await h.clock.advance(wait - 1)
      expect(h.readyCalls(), `no attempt ${wait - 1}ms after the last`).toBe(before)
      await h.clock.advance(1)
      expect(h.readyCalls(), `an attempt ${wait}ms after the last`).toBe(before + 1)
    }
    expect(h.clock.delays).toEqual([...waits, MAX_RETRY_MS])
    expect(h.connections).toEqual([])
    expect(h.events).toEqual(
      Array.from({ length: 10 }, () => ({ type: 'listener.failed', error: refused })),
    )

    await h.clock.advance(MAX_RETRY_MS)
    expect(h.events.at(-1)).toEqual(connected(false))
    expect(h.listened()).toBe(1)
    expect(h.clock.armed.size).toBe(0)
  })

  it('starts again from 50ms once a connection comes up', async () => {
    const h = listenOverFakes()
    await h.started()
    h.upcoming.push(failing(), failing())
    h.latest().lose(new Error('gone'))
    await settle()
    await h.clock.advance(50)
    await h.clock.advance(100)
    await h.clock.advance(200)
    expect(h.connections).toHaveLength(4)
    expect(h.events.map((event) => event.type)).toEqual([
      'listener.connected',
      'listener.lost',
      'listener.failed',
      'listener.failed',
      'listener.connected',
    ])
    h.latest().lose(new Error('gone again'))
    await settle()
    expect(h.clock.delays).toEqual([50, 100, 200, FIRST_RETRY_MS])
  })
})

describe('the LISTEN connection while it runs', () => {
  it('opens one connection however often it is started', async () => {
    const h = listenOverFakes()
    h.connection.start()
    h.connection.start()
    await settle()
    h.connection.start()
    await settle()
    expect(h.readyCalls()).toBe(1)
    expect(h.connections).toHaveLength(1)
    expect(h.latest().statements).toEqual([`LISTEN "${CHANNEL}"`])
    expect(h.events).toEqual([connected(false)])
    expect(h.listened()).toBe(1)
  })

  it('does not hurry a pending reconnect when started again', async () => {
    const h = listenOverFakes()
    h.readies.push(down(new Error('down')))
    await h.started()
    h.connection.start()
    await settle()
    expect(h.readyCalls()).toBe(1)
    await h.clock.advance(50)
    expect(h.readyCalls()).toBe(2)
    expect(h.events.at(-1)).toEqual(connected(false))
  })

  it('tells the notifications on its channel, and no other', async () => {
    const h = listenOverFakes()
    await h.started()
    h.latest().notify('admitted:a')
    h.latest().notify('leases', 'elsewhere')
    h.latest().notify(undefined)
    expect(h.notices).toEqual(['admitted:a', ''])
  })

  it('reports a loss once, ends the connection, and reconnects 50ms later as a reconnect', async () => {
    const h = listenOverFakes()
    await h.started()
    const first = h.latest()
    const reset = new Error('read ECONNRESET')
    first.lose(reset)
    await settle()
    expect(first.ended).toBe(true)
    expect(h.events).toEqual([connected(false), { type: 'listener.lost', error: reset }])
    await h.clock.advance(49)
    expect(h.connections).toHaveLength(1)
    await h.clock.advance(1)
    expect(h.connections).toHaveLength(2)
    expect(h.events.at(-1)).toEqual(connected(true))
    expect(h.listened()).toBe(2)

    // The lost connection is heard no more.
    first.notify('admitted:a')
    first.emit('error', new Error('late'))
    await settle()
    expect(h.notices).toEqual([])
    expect(h.events).toHaveLength(3)
  })
})

describe('the LISTEN connection’s liveness check', () => {
  it('asks SELECT 1 and leaves no timer behind when answered', async () => {
    const h = listenOverFakes()
    await h.started()
    await h.connection.checkAlive()
    expect(h.latest().statements).toEqual([`LISTEN "${CHANNEL}"`, 'SELECT 1'])
    expect(h.clock.armed.size).toBe(0)
    expect(h.events).toEqual([connected(false)])
  })

  it('drops a connection that does not answer in time, and reconnects', async () => {
    const h = listenOverFakes({ aliveTimeoutMs: 20_000 })
    await h.started()
    const silent = h.latest()
    silent.pings = never
    let checked = false
    void h.connection.checkAlive().then(() => (checked = true))
    await h.clock.advance(19_999)
    expect(h.events).toEqual([connected(false)])
    expect(checked).toBe(false)
    await h.clock.advance(1)
    expect(checked).toBe(true)
    expect(h.events.at(-1)).toEqual({ type: 'listener.lost', error: new Error(SILENT) })
    expect(silent.ended).toBe(true)
    await h.clock.advance(50)
    expect(h.events.at(-1)).toEqual(connected(true))
  })

  it('drops a connection whose SELECT 1 fails, at once', async () => {
    const h = listenOverFakes()
    await h.started()
    const broken = new Error('terminating connection due to administrator command')
    h.latest().pings = () => Promise.reject(broken)
    await h.connection.checkAlive()
    expect(h.events).toEqual([connected(false), { type: 'listener.lost', error: broken }])
    expect(h.clock.delays).toEqual([10_000, 50])
  })

  it('returns at once with no connection to check', async () => {
    const h = listenOverFakes()
    await h.connection.checkAlive()
    h.readies.push(down(new Error('down')))
    await h.started()
    await h.connection.checkAlive()
    expect(h.connections).toEqual([])
  })
})

describe('the LISTEN connection stopped', () => {
  it('while it connects: ends the client that connects late, and tells nothing', async () => {
    const h = listenOverFakes()
    const slow = new FakeConnection()
    const listen = deferred<unknown>()
    slow.listens = () => listen.promise
    h.upcoming.push(slow)
    await h.started()
    await h.connection.stop()
    listen.resolve({ rows: [] })
    await settle()
    expect(slow.ended).toBe(true)
    expect(h.events).toEqual([])
    expect(h.listened()).toBe(0)
    expect(h.clock.armed.size).toBe(0)
    // Nor does its loss count: it was never used.
    slow.lose(new Error('late'))
    await settle()
    expect(h.events).toEqual([])
  })

  it('while it connects: neither reports nor retries an attempt that then fails', async () => {
    const h = listenOverFakes()
    const slow = new FakeConnection()
    const open = deferred()
    slow.opens = () => open.promise
    h.upcoming.push(slow)
    await h.started()
    await h.connection.stop()
    open.reject(new Error('refused'))
    await settle()
    expect(slow.ended).toBe(true)
    expect(h.events).toEqual([])
    expect(h.clock.armed.size).toBe(0)
  })

  it('while it waits to reconnect: cancels the wait', async () => {
    const h = listenOverFakes()
    h.readies.push(down(new Error('down')))
    await h.started()
    expect(h.clock.armed.size).toBe(1)
    await h.connection.stop()
    expect(h.clock.armed.size).toBe(0)
    await h.clock.advance(10_000)
    expect(h.readyCalls()).toBe(1)
  })

  it('while it listens: waits for the connection to end, then hears it no more', async () => {
    const h = listenOverFakes()
    await h.started()
    const first = h.latest()
    const closing = deferred()
    first.end = () => {
      first.ended = true
      return closing.promise
    }
    let stopped = false
    void h.connection.stop().then(() => (stopped = true))
    await settle()
    expect(first.ended).toBe(true)
    expect(stopped).toBe(false)
    closing.resolve()
    await settle()
    expect(stopped).toBe(true)

    // Started again: a first connection, not a reconnect (nobody watched in between).
    await h.started()
    first.notify('admitted:a')
    first.emit('end')
    await settle()
    expect(h.connections).toHaveLength(2)
    expect(h.events).toEqual([connected(false), connected(false)])
    expect(h.notices).toEqual([])
  })

  it('while checking: the check returns, and nothing is dropped', async () => {
    const h = listenOverFakes()
    await h.started()
    h.latest().pings = never
    const check = h.connection.checkAlive()
    await h.connection.stop()
    await check
    expect(h.events).toEqual([connected(false)])
    expect(h.clock.armed.size).toBe(0)
  })
})

describe('the listen machine’s states', () => {
  it('goes stopped → opening → listening → retrying → opening, and an abandoned attempt back to stopped', async () => {
    const clock = new SimulatedClock()
    const attempt = deferred<Client>()
    const attempts = [
      () => Promise.resolve({} as Client),
      () => Promise.reject(new Error('refused')),
      () => attempt.promise,
    ]
    const machine = listenMachine.provide({
      actors: { open: fromPromise<Client>(() => attempts.shift()?.() ?? never()) },
    })
    const actor = createActor(machine, { input: { aliveTimeoutMs: 1_000 }, clock }).start()
    const seen = () => JSON.stringify(actor.getSnapshot().value)
    expect(seen()).toBe('"stopped"')
    actor.send({ type: 'start' })
    expect(seen()).toBe('{"opening":"wanted"}')
    await settle()
    expect(seen()).toBe('{"listening":"idle"}')
    actor.send({ type: 'connection.lost', error: new Error('gone') })
    expect(seen()).toBe('"retrying"')
    clock.increment(50)
    await settle()
    expect(seen()).toBe('"retrying"')
    expect(actor.getSnapshot().context.retryMs).toBe(100)
    clock.increment(100)
    actor.send({ type: 'stop' })
    expect(seen()).toBe('{"opening":"abandoned"}')
    attempt.resolve({} as Client)
    await settle()
    expect(seen()).toBe('"stopped"')
    actor.stop()
  })
})
