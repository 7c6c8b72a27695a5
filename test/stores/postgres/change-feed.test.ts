/**
 * The Postgres change feed over its LISTEN connection, with the fakes of
 * feed-fakes.ts and fake timers so every delay is exact: what the feed adds
 * to the connection (a resync each time the LISTEN takes effect, one poll
 * chain, the liveness check on each poll, nothing carried across a stop).
 * The connection's own rules (backoff, losses, stop while it opens) are
 * listen-machine.test.ts and listen.model.test.ts; the feed's reads,
 * change-feed-reads.test.ts.
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
})

describe('the change feed stopped while it connects', () => {
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
