/**
 * What the Postgres change feed reads and tells, over the fakes of
 * postgres-feed-fakes.ts with fake timers: the backstop poll's bookkeeping
 * (floors, repeats, the 500-row limit, leases), notifications read once per
 * turn, corrupt rows, and nothing told of a read that ends after stop().
 */
import { describe, expect, it, vi } from 'vitest'
import { CorruptRowError } from '../../../src/protocol/store/index.js'
import { connected, settle, useFakeFeeds } from './feed-fakes.js'
import { newAsk } from '../store-contract.js'

const harness = useFakeFeeds()

describe('the change feed’s backstop poll', () => {
  it('learns where revisions stand first, then reads above the revision seen two polls ago', async () => {
    const h = harness()
    for (const askId of ['old-1', 'old-2', 'old-3']) h.db.write(askId)
    await h.started()
    await h.poll()
    expect(h.db.valuesOf('max')).toEqual([[]])
    expect(h.db.valuesOf('poll')).toEqual([])
    h.db.write('a') // revision 4, its notification lost
    await h.poll()
    h.db.write('b') // 5
    await h.poll()
    await h.poll()
    await h.poll()
    expect(h.db.valuesOf('poll')).toEqual([
      [3, 501],
      [3, 501],
      [4, 501],
      [5, 501],
    ])
    // Each once, though two polls read each.
    expect(h.labels()).toEqual(['resync', 'ask.admitted a', 'ask.admitted b'])
    expect(h.changes[1]).toEqual({
      type: 'ask.admitted',
      record: {
        askId: 'a',
        questions: newAsk().questions,
        ownerSeamId: 'seam-a',
        startedAt: 1,
        state: 'pending',
      },
    })
  })

  it('catches a write committed after one with a later revision', async () => {
    const h = harness()
    await h.started()
    await h.poll()
    // Revision 1 is drawn, 2 commits and is polled, then 1 commits.
    h.db.write('later', 'pending', { revision: 2 })
    await h.poll()
    h.db.write('earlier', 'pending', { revision: 1 })
    await h.poll()
    expect(h.labels()).toEqual(['resync', 'ask.admitted later', 'ask.admitted earlier'])
  })

  it('does not repeat what a notification told, but tells the ask’s next change', async () => {
    const h = harness()
    await h.started()
    await h.poll()
    h.db.write('a')
    h.latest().notify('admitted:a')
    await settle()
    expect(h.labels()).toEqual(['resync', 'ask.admitted a'])
    await h.poll()
    await h.poll()
    await h.poll()
    expect(h.db.valuesOf('poll')).toEqual([
      [0, 501],
      [0, 501],
      [1, 501],
    ])
    h.db.write('a', 'settled') // no notification
    await h.poll()
    await h.poll()
    expect(h.labels()).toEqual(['resync', 'ask.admitted a', 'ask.settled a'])
    expect(h.changes[2]).toMatchObject({
      type: 'ask.settled',
      record: { askId: 'a', state: 'settled', settledAt: 2 },
    })
  })

  it('reads out 500 changed rows, and says resync instead for 501', async () => {
    const h = harness()
    await h.started()
    await h.poll()
    for (let i = 0; i < 500; i += 1) h.db.write(`bulk-${i}`)
    await h.poll()
    expect(h.changes).toHaveLength(501)
    expect(h.labels().at(-1)).toBe('ask.admitted bulk-499')

    h.changes.length = 0
    for (let i = 500; i < 1_001; i += 1) h.db.write(`bulk-${i}`)
    await h.poll()
    expect(h.labels()).toEqual(['resync'])
    // It starts over from the newest revision: the next poll reads above it.
    h.db.write('after')
    await h.poll()
    expect(h.db.valuesOf('poll').slice(-2)).toEqual([
      [0, 501],
      [1_001, 501],
    ])
    expect(h.labels()).toEqual(['resync', 'ask.admitted after'])
  })

  it('tells leases.changed when the poll sees the leases move, not on its first look', async () => {
    const h = harness()
    h.db.leases = 'seam-a:true'
    await h.started()
    await h.poll()
    await h.poll()
    expect(h.labels()).toEqual(['resync'])
    h.db.leases = 'seam-a:false'
    await h.poll()
    expect(h.labels()).toEqual(['resync', 'leases.changed'])
    h.db.leases = null
    await h.poll()
    await h.poll()
    expect(h.labels()).toEqual(['resync', 'leases.changed', 'leases.changed'])
  })

  it('reports a poll that fails and polls again', async () => {
    const h = harness()
    await h.started()
    const failure = new Error('canceling statement due to statement timeout')
    h.db.fail('max', failure)
    await h.poll()
    expect(h.events).toEqual([connected(false), { type: 'poll.failed', error: failure }])
    h.db.fail('leases', failure)
    await h.poll()
    await h.poll()
    expect(h.events.filter((e) => e.type === 'poll.failed')).toHaveLength(2)
    // A poll that fails moves nothing, whichever read failed: the one after it
    // starts where the last good poll left off (here, with no baseline yet).
    expect(h.db.calls.map((call) => call.kind)).toEqual(['max', 'max', 'leases', 'max', 'leases'])
  })

  it('skips a corrupt row it polls, tells the rest, and asks for one resync', async () => {
    const h = harness()
    await h.started()
    await h.poll()
    h.db.write('good-1')
    h.db.write('bad', 'pending', { schemaVersion: '2' })
    h.db.write('good-2', 'settled')
    await h.poll()
    expect(h.corrupt).toEqual([new CorruptRowError('ask bad: schema version 2, not 1')])
    expect(h.labels()).toEqual(['resync', 'ask.admitted good-1', 'ask.settled good-2', 'resync'])
  })
})

describe('the change feed’s notifications', () => {
  it('reads the asks one turn’s notifications name in one query', async () => {
    const h = harness()
    await h.started()
    h.db.write('a')
    h.db.write('b', 'settled')
    h.latest().notify('admitted:a')
    h.latest().notify('settled:b')
    h.latest().notify('admitted:a')
    await settle()
    expect(h.db.valuesOf('read')).toEqual([[['a', 'b']]])
    expect(h.labels()).toEqual(['resync', 'ask.admitted a', 'ask.settled b'])

    h.db.write('a', 'settled')
    h.latest().notify('settled:a')
    await settle()
    expect(h.db.valuesOf('read')).toEqual([[['a', 'b']], [['a']]])
    expect(h.labels()).toEqual(['resync', 'ask.admitted a', 'ask.settled b', 'ask.settled a'])
  })

  it('hears only its own channel', async () => {
    const h = harness()
    await h.started()
    h.db.write('a')
    h.latest().notify('admitted:a', 'askseam:other')
    await settle()
    expect(h.db.calls).toEqual([])
    expect(h.labels()).toEqual(['resync'])
  })

  it('tells leases.changed for a lease notice without reading any ask', async () => {
    const h = harness()
    await h.started()
    h.latest().notify('leases')
    await settle()
    expect(h.labels()).toEqual(['resync', 'leases.changed'])
    h.db.write('a')
    h.latest().notify('leases')
    h.latest().notify('admitted:a')
    await settle()
    expect(h.labels()).toEqual(['resync', 'leases.changed', 'leases.changed', 'ask.admitted a'])
    expect(h.db.valuesOf('read')).toEqual([[['a']]])
    h.db.write('a', 'settled')
    h.latest().notify('settled:a')
    await settle()
    expect(h.labels()).toEqual([
      'resync',
      'leases.changed',
      'leases.changed',
      'ask.admitted a',
      'ask.settled a',
    ])
  })

  it('says resync, and reads nothing, for a resync notice or one it does not know', async () => {
    const h = harness()
    await h.started()
    h.db.write('a')
    h.latest().notify('admitted:a')
    h.latest().notify('resync')
    await settle()
    expect(h.labels()).toEqual(['resync', 'resync'])
    expect(h.db.calls).toEqual([])
    for (const payload of ['purged:7', 'leases-of-another-kind', undefined]) {
      h.latest().notify(payload)
      await settle()
    }
    h.latest().notify('leases')
    h.latest().notify('resync')
    await settle()
    expect(h.labels()).toEqual([
      'resync',
      'resync',
      'resync',
      'resync',
      'resync',
      'leases.changed',
      'resync',
    ])
    // A resync is told once: the next notice is read as usual.
    h.latest().notify('admitted:a')
    await settle()
    expect(h.labels().at(-1)).toBe('ask.admitted a')
  })

  it('says resync when the asks cannot be read', async () => {
    const h = harness()
    await h.started()
    h.db.write('a')
    h.db.fail('read', new Error('too many clients already'))
    h.latest().notify('admitted:a')
    await settle()
    expect(h.labels()).toEqual(['resync', 'resync'])
  })

  it('reports a corrupt row it was told of, tells the others, then says resync once', async () => {
    const h = harness()
    await h.started()
    h.db.write('bad', 'settled', { schemaVersion: '0' })
    h.db.write('good')
    h.latest().notify('settled:bad')
    h.latest().notify('admitted:good')
    await settle()
    expect(h.corrupt).toEqual([new CorruptRowError('ask bad: schema version 0, not 1')])
    expect(h.labels()).toEqual(['resync', 'ask.admitted good', 'resync'])
  })
})

describe('the change feed’s reads after stop()', () => {
  it('tells nothing of a read that finishes or fails after stop()', async () => {
    const h = harness()
    await h.started()
    h.db.write('a')
    const read = h.db.hold('read')
    h.latest().notify('admitted:a')
    await settle()
    await h.feed.stop()
    read.resolve()
    await settle()
    await h.started()
    const failing = h.db.hold('read')
    h.latest().notify('admitted:a')
    await settle()
    await h.feed.stop()
    failing.reject(new Error('connection lost'))
    await settle()
    expect(h.labels()).toEqual(['resync', 'resync'])
  })

  it('tells nothing of a poll that finishes or fails after stop(), and polls no more', async () => {
    const h = harness()
    await h.started()
    await h.poll()
    h.db.write('a')
    await h.stopMidPoll('poll', (held) => held.resolve())
    const calls = h.db.calls.length
    await vi.advanceTimersByTimeAsync(10_000)
    expect(h.db.calls).toHaveLength(calls)
    expect(h.labels()).toEqual(['resync'])

    await h.started()
    await h.poll()
    await h.stopMidPoll('poll', (held) => held.reject(new Error('connection lost')))
    expect(h.events.filter((e) => e.type === 'poll.failed')).toEqual([])
  })

  it('tells nothing of a lease change or an overflow its poll sees after stop()', async () => {
    const h = harness()
    await h.started()
    await h.poll()
    h.db.leases = 'seam-a:true'
    await h.stopMidPoll('leases', (held) => held.resolve())
    // The next start's first look at the leases is a first look: no change
    // against what the stopped poll read.
    h.db.leases = 'seam-a:false'

    await h.started()
    await h.poll()
    for (let i = 0; i < 501; i += 1) h.db.write(`bulk-${i}`)
    await h.stopMidPoll('max', (held) => held.resolve())
    expect(h.labels()).toEqual(['resync', 'resync'])
  })

  it('keeps one poll chain, and a working poll, when stopped and started mid-poll', async () => {
    const h = harness()
    await h.started()
    await h.poll()
    h.db.write('a')
    const rows = h.db.hold('poll')
    await h.poll()
    await h.feed.stop()
    h.feed.start()
    rows.resolve()
    await settle()
    // The new start's first poll learns the revisions afresh; one chain, so
    // one baseline read and one leases read per interval.
    const before = h.db.calls.length
    await h.poll()
    expect(h.db.calls.slice(before).map((call) => call.kind)).toEqual(['max', 'leases'])
    h.db.write('b')
    await h.poll()
    expect(h.db.calls.slice(before).map((call) => call.kind)).toEqual([
      'max',
      'leases',
      'poll',
      'leases',
    ])
    expect(h.events.filter((e) => e.type === 'poll.failed')).toEqual([])
    expect(h.labels()).toContain('ask.admitted b')
  })

  it('starts afresh: a baseline poll, and no notice left over from before', async () => {
    const h = harness()
    await h.started()
    await h.poll()
    h.db.write('a')
    await h.poll()
    h.latest().notify('leases')
    h.latest().notify('resync')
    await h.feed.stop()
    await settle()
    expect(h.labels()).toEqual(['resync', 'ask.admitted a'])

    await h.started()
    const before = h.db.calls.length
    await h.poll()
    expect(h.db.calls.slice(before).map((call) => call.kind)).toEqual(['max', 'leases'])
    h.db.write('b')
    h.latest().notify('admitted:b')
    await settle()
    expect(h.labels()).toEqual(['resync', 'ask.admitted a', 'resync', 'ask.admitted b'])
  })
})
