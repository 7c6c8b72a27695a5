/**
 * The Postgres change feed's LISTEN connection, over the fakes of
 * postgres-feed-fakes.ts with fake timers so every delay is exact: opening
 * it, the reconnect backoff, the liveness check, and stop() while it opens
 * or after. Its reads are postgres-change-feed-reads.test.ts.
 */
import { describe, expect, it, vi } from 'vitest'
import {
  CHANNEL,
  FakeConnection,
  connected,
  deferred,
  downAnswer,
  never,
  settle,
  useFakeFeeds,
} from './feed-fakes.js'

const harness = useFakeFeeds()
const ended = new Error('the LISTEN connection ended')

describe('the change feed’s LISTEN connection', () => {
  it('listens on the schema’s channel, says so, and asks for a resync', async () => {
    const h = harness()
    await h.started()
    expect(h.connections).toHaveLength(1)
    expect(h.latest().statements).toEqual([`LISTEN "${CHANNEL}"`])
    expect(h.events).toEqual([connected(false)])
    expect(h.labels()).toEqual(['resync'])
  })

  it('opens one connection and one poll chain however often it is started', async () => {
    const h = harness()
    h.feed.start()
    h.feed.start()
    await settle()
    expect(h.connections).toHaveLength(1)
    expect(h.readyCalls()).toBe(1)
    await h.poll()
    await h.poll()
    expect(h.db.calls.map((call) => call.kind)).toEqual(['max', 'leases', 'poll', 'leases'])
  })

  it('retries a schema it cannot read after 50ms, doubling up to 5s, and opens no client meanwhile', async () => {
    const h = harness({ pollIntervalMs: 60_000 })
    const down = new Error('connect ECONNREFUSED')
    for (let i = 0; i < 10; i += 1) h.readies.push(downAnswer(down))
    await h.started()
    expect(h.readyCalls()).toBe(1)
    for (const delay of [50, 100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000]) {
      const before = h.readyCalls()
      await vi.advanceTimersByTimeAsync(delay - 1)
      expect(h.readyCalls(), `no attempt ${delay - 1}ms after the last`).toBe(before)
      await vi.advanceTimersByTimeAsync(1)
      expect(h.readyCalls(), `an attempt ${delay}ms after the last`).toBe(before + 1)
    }
    expect(h.connections).toEqual([])
    expect(h.events).toEqual(
      Array.from({ length: 10 }, () => ({ type: 'listener.failed', error: down })),
    )
    expect(h.changes).toEqual([])

    // The eleventh attempt gets through: the first connection, not a reconnect.
    await vi.advanceTimersByTimeAsync(5_000)
    expect(h.events.at(-1)).toEqual(connected(false))
    expect(h.labels()).toEqual(['resync'])
  })

  it('ends a connection that fails to open or to LISTEN, and tries a new one', async () => {
    const h = harness({ pollIntervalMs: 60_000 })
    const refused = new FakeConnection()
    refused.opens = () => Promise.reject(new Error('refused'))
    const deaf = new FakeConnection()
    deaf.listens = () => Promise.reject(new Error('LISTEN failed'))
    h.upcoming.push(refused, deaf)
    await h.started()
    expect(refused.ended).toBe(true)
    await vi.advanceTimersByTimeAsync(50)
    expect(deaf.ended).toBe(true)
    await vi.advanceTimersByTimeAsync(99)
    expect(h.connections).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.connections).toHaveLength(3)
    expect(h.events).toEqual([
      { type: 'listener.failed', error: new Error('refused') },
      { type: 'listener.failed', error: new Error('LISTEN failed') },
      connected(false),
    ])

    // The failed ones are no longer heard: not their notifications, not their errors.
    h.db.write('a')
    refused.notify('admitted:a')
    deaf.notify('leases')
    deaf.emit('error', new Error('late'))
    await settle()
    expect(h.db.valuesOf('read')).toEqual([])
    expect(h.labels()).toEqual(['resync'])
    expect(h.events).toHaveLength(3)
  })

  it('reports a lost connection once, ends it, and reconnects 50ms later as a reconnect', async () => {
    const h = harness({ pollIntervalMs: 60_000 })
    await h.started()
    const first = h.latest()
    const reset = new Error('read ECONNRESET')
    first.lose(reset)
    await settle()
    expect(first.ended).toBe(true)
    expect(h.events).toEqual([connected(false), { type: 'listener.lost', error: reset }])
    await vi.advanceTimersByTimeAsync(49)
    expect(h.connections).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.connections).toHaveLength(2)
    expect(h.events.at(-1)).toEqual(connected(true))
    expect(h.labels()).toEqual(['resync', 'resync'])

    // The dropped connection is no longer heard.
    h.db.write('a')
    first.notify('admitted:a')
    await settle()
    expect(h.db.valuesOf('read')).toEqual([])

    // A connection that ends by itself is lost too; the backoff starts again at 50ms.
    h.latest().emit('end')
    await settle()
    expect(h.events.at(-1)).toEqual({ type: 'listener.lost', error: ended })
    await vi.advanceTimersByTimeAsync(49)
    expect(h.connections).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.connections).toHaveLength(3)
    expect(h.events.filter((e) => e.type === 'listener.connected')).toEqual([
      connected(false),
      connected(true),
      connected(true),
    ])
  })

  it('keeps doubling the wait while reconnects fail, from 50ms again after one succeeds', async () => {
    const h = harness({ pollIntervalMs: 60_000 })
    await h.started()
    const failing = () => {
      const connection = new FakeConnection()
      connection.opens = () => Promise.reject(new Error('refused'))
      return connection
    }
    h.upcoming.push(failing(), failing())
    h.latest().lose(new Error('gone'))
    await settle()
    // Lost at 0: attempts at 50 (fails), 150 (fails), 350 (succeeds).
    await vi.advanceTimersByTimeAsync(50)
    expect(h.connections).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(99)
    expect(h.connections).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.connections).toHaveLength(3)
    await vi.advanceTimersByTimeAsync(199)
    expect(h.connections).toHaveLength(3)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.connections).toHaveLength(4)
    expect(h.events.map((e) => e.type)).toEqual([
      'listener.connected',
      'listener.lost',
      'listener.failed',
      'listener.failed',
      'listener.connected',
    ])
    h.latest().lose(new Error('gone again'))
    await vi.advanceTimersByTimeAsync(49)
    expect(h.connections).toHaveLength(4)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.connections).toHaveLength(5)
  })
})

describe('the change feed stopped while it connects', () => {
  it('ends a connection whose LISTEN answers after stop(), telling nothing', async () => {
    const h = harness()
    const slow = new FakeConnection()
    const listen = deferred<unknown>()
    slow.listens = () => listen.promise
    h.upcoming.push(slow)
    h.feed.start()
    await settle()
    await h.feed.stop()
    listen.resolve({ rows: [] })
    await settle()
    expect(slow.ended).toBe(true)
    expect(h.events).toEqual([])
    expect(h.changes).toEqual([])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('neither reports nor retries an attempt that fails after stop()', async () => {
    const h = harness()
    const slow = new FakeConnection()
    const open = deferred()
    slow.opens = () => open.promise
    h.upcoming.push(slow)
    h.feed.start()
    await settle()
    await h.feed.stop()
    open.reject(new Error('refused'))
    await settle()
    expect(slow.ended).toBe(true)
    expect(h.events).toEqual([])
    // No retry timer (nor any other) is left behind.
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(h.connections).toHaveLength(1)
  })

  it('opens the connection once when started again before the first attempt is done', async () => {
    const h = harness()
    const schema = deferred<{ schema: string; channel: string }>()
    h.readies.push(() => schema.promise)
    h.feed.start()
    await settle()
    await h.feed.stop()
    h.feed.start()
    await settle()
    schema.resolve({ schema: 'app', channel: CHANNEL })
    await settle()
    expect(h.readyCalls()).toBe(1)
    expect(h.connections).toHaveLength(1)
    expect(h.events).toEqual([connected(false)])
    expect(h.labels()).toEqual(['resync'])
  })

  it('does not carry a notification the closing attempt heard into the next start', async () => {
    const h = harness()
    const slow = new FakeConnection()
    const listen = deferred<unknown>()
    slow.listens = () => listen.promise
    h.upcoming.push(slow)
    h.feed.start()
    await settle()
    await h.feed.stop()
    // LISTEN answers, and notifications follow in the same read from the
    // socket, before the attempt sees it must close.
    h.db.write('stale')
    listen.resolve({ rows: [] })
    slow.notify('leases')
    slow.notify('settled:stale')
    await settle()
    expect(h.changes).toEqual([])

    await h.started()
    h.db.write('fresh')
    h.latest().notify('admitted:fresh')
    await settle()
    expect(h.db.valuesOf('read')).toEqual([[['fresh']]])
    expect(h.labels()).toEqual(['resync', 'ask.admitted fresh'])
  })
})

describe('the change feed’s liveness check', () => {
  it('asks the connection SELECT 1 each poll and leaves no timer of its own behind', async () => {
    const h = harness()
    await h.started()
    await h.poll()
    expect(h.latest().statements).toEqual([`LISTEN "${CHANNEL}"`, 'SELECT 1'])
    // Only the next poll's timer: the check's own is not unref'd, and would
    // keep the process up for 10s.
    expect(vi.getTimerCount()).toBe(1)
    await h.poll()
    expect(h.latest().statements).toHaveLength(3)
    expect(h.events).toEqual([connected(false)])
  })

  it('drops a connection that does not answer within 10s, and reconnects', async () => {
    const h = harness()
    await h.started()
    const silent = h.latest()
    silent.pings = never
    await h.poll()
    await vi.advanceTimersByTimeAsync(9_999)
    expect(h.events).toEqual([connected(false)])
    await vi.advanceTimersByTimeAsync(1)
    expect(h.events).toEqual([
      connected(false),
      { type: 'listener.lost', error: new Error('the LISTEN connection did not answer') },
    ])
    expect(silent.ended).toBe(true)
    await vi.advanceTimersByTimeAsync(50)
    expect(h.connections).toHaveLength(2)
    expect(h.events.at(-1)).toEqual(connected(true))
    // The poll that waited goes on: its baseline read came after the check.
    expect(h.db.calls.map((call) => call.kind)).toEqual(['max', 'leases'])
  })

  it('gives a server at least one poll interval to answer', async () => {
    const h = harness({ pollIntervalMs: 20_000 })
    await h.started()
    h.latest().pings = never
    await h.poll()
    await vi.advanceTimersByTimeAsync(19_999)
    expect(h.events).toEqual([connected(false)])
    await vi.advanceTimersByTimeAsync(1)
    expect(h.events.at(-1)).toEqual({
      type: 'listener.lost',
      error: new Error('the LISTEN connection did not answer'),
    })
  })

  it('drops a connection whose SELECT 1 fails, at once', async () => {
    const h = harness()
    await h.started()
    const broken = new Error('terminating connection due to administrator command')
    h.latest().pings = () => Promise.reject(broken)
    await h.poll()
    expect(h.events).toEqual([connected(false), { type: 'listener.lost', error: broken }])
  })

  it('polls on without a connection to check', async () => {
    const h = harness()
    for (let i = 0; i < 20; i += 1) h.readies.push(downAnswer(new Error('down')))
    await h.started()
    await h.poll()
    await h.poll()
    expect(h.connections).toEqual([])
    expect(h.db.calls.map((call) => call.kind)).toEqual(['max', 'leases', 'poll', 'leases'])
    expect(h.events.every((e) => e.type === 'listener.failed')).toBe(true)
  })
})

describe('the change feed’s connection after stop()', () => {
  it('ends its connection, and hears it no more once started again', async () => {
    const h = harness()
    await h.started()
    const first = h.latest()
    await h.feed.stop()
    await settle()
    expect(first.ended).toBe(true)
    expect(h.events).toEqual([connected(false)])
    expect(vi.getTimerCount()).toBe(0)

    await h.started()
    expect(h.connections).toHaveLength(2)
    // The first connection of a new watch: nobody watched in between, so no reconnect.
    expect(h.events).toEqual([connected(false), connected(false)])
    h.db.write('a')
    first.notify('admitted:a')
    await settle()
    expect(h.db.valuesOf('read')).toEqual([])
  })

  it('stops cleanly without a connection, and with a reconnect pending', async () => {
    const h = harness()
    h.readies.push(downAnswer(new Error('down')))
    await h.started()
    await expect(h.feed.stop()).resolves.toBeUndefined()
    expect(vi.getTimerCount()).toBe(0)
    await h.started()
    h.latest().lose(new Error('gone'))
    await settle()
    await h.feed.stop()
    expect(vi.getTimerCount()).toBe(0)
  })
})
