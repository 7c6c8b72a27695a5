/**
 * fleetMachine with its store calls provided and its time on XState's
 * SimulatedClock (Date.now() kept in step with it): the lease written then
 * the leases read, renewals on a durable store only, rereads, sweeps at the
 * earliest watched deadline, orphans of a dropped seam, stop and crash, and
 * every delay clamped to what a timer can hold.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, fromPromise } from 'xstate'
import {
  HEARTBEAT_MS,
  LEASE_MS,
  MAX_DELAY_MS,
  MAX_UNWRITTEN,
  fleetMachine,
} from '../../src/machines/index.js'
import type {
  FleetEmitted,
  FleetInput,
  LeaseRead,
  UnwrittenEnding,
} from '../../src/machines/index.js'
import { storeFailedOutcome } from '../../src/vocabulary/index.js'
import { recordingClock } from '../support/clock.js'
import { deferred } from '../support/deferred.js'
import { settle } from '../support/settle.js'

type LeaseWrite = { providerActive: boolean; expiresAt: number }

/** The fleet's store calls, recorded; reads and writes answer at once unless the test holds them. */
function storeCalls() {
  const calls = {
    writes: [] as LeaseWrite[],
    renewals: [] as LeaseWrite[],
    left: [] as LeaseWrite[],
    reads: 0,
    sweeps: [] as number[],
    orphans: [] as number[],
    releases: 0,
    /** Each round of unwritten endings offered, as the ids offered and when. */
    endings: [] as Array<{ at: number; askIds: string[] }>,
    /** When each reread of the store's pending asks began. */
    resyncs: [] as number[],
  }
  let read: () => Promise<LeaseRead> = async () => ({ providerElsewhere: false })
  let write: () => Promise<void> = async () => undefined
  let writeEndings = async (endings: UnwrittenEnding[]) => endings.map(({ askId }) => askId)
  let resync: () => Promise<void> = async () => undefined
  let sweep: () => Promise<void> = async () => undefined
  /** The calls whose next one fails. */
  const failing = new Set<'renew' | 'orphans' | 'release' | 'leave'>()
  const failIfAsked = (call: 'renew' | 'orphans' | 'release' | 'leave') => {
    if (failing.delete(call)) throw new Error('the store is down')
  }
  return {
    calls,
    /** Makes the next call of this kind fail (after it is recorded). */
    failNext(call: 'renew' | 'orphans' | 'release' | 'leave') {
      failing.add(call)
    },
    /** How a sweep for overdue asks goes. */
    sweepWith(next: () => Promise<void>) {
      sweep = next
    },
    /** How a reread of the store's pending asks goes. */
    resyncWith(next: () => Promise<void>) {
      resync = next
    },
    /** How a round of unwritten endings goes: which the store took. */
    writeEndingsWith(next: typeof writeEndings) {
      writeEndings = next
    },
    readWith(next: () => Promise<LeaseRead>) {
      read = next
    },
    writeWith(next: () => Promise<void>) {
      write = next
    },
    actors: {
      writeLease: fromPromise<void, LeaseWrite>(({ input }) => {
        calls.writes.push(input)
        return write()
      }),
      renewLease: fromPromise<void, LeaseWrite>(async ({ input }) => {
        calls.renewals.push(input)
        failIfAsked('renew')
      }),
      leaveLease: fromPromise<void, LeaseWrite>(async ({ input }) => {
        calls.left.push(input)
        failIfAsked('leave')
      }),
      readLeases: fromPromise<LeaseRead>(() => {
        calls.reads += 1
        return read()
      }),
      sweepOverdue: fromPromise<number, { now: number }>(async ({ input }) => {
        calls.sweeps.push(input.now)
        await sweep()
        return input.now
      }),
      endOrphans: fromPromise<void>(async () => {
        calls.orphans.push(Date.now())
        failIfAsked('orphans')
      }),
      releaseLease: fromPromise<void>(async () => {
        calls.releases += 1
        failIfAsked('release')
      }),
      writeEndings: fromPromise<string[], UnwrittenEnding[]>(({ input }) => {
        calls.endings.push({ at: Date.now(), askIds: input.map(({ askId }) => askId) })
        return writeEndings(input)
      }),
      resync: fromPromise<void>(() => {
        calls.resyncs.push(Date.now())
        return resync()
      }),
    },
  }
}

function startFleet(
  input: Partial<FleetInput> = {},
  prepare?: (store: ReturnType<typeof storeCalls>) => void,
) {
  const store = storeCalls()
  prepare?.(store)
  const clock = recordingClock({ movesDateNow: true })
  const actor = createActor(fleetMachine.provide({ actors: store.actors }), {
    clock,
    input: { durable: false, providerHere: false, ...input },
  })
  const emitted: FleetEmitted[] = []
  actor.on('*', (event) => emitted.push(event))
  actor.start()
  return { actor, store, clock, emitted }
}

async function running(
  input: Partial<FleetInput> = {},
  prepare?: Parameters<typeof startFleet>[1],
) {
  const fleet = startFleet(input, prepare)
  await settle()
  expect(fleet.actor.getSnapshot().matches('running')).toBe(true)
  return fleet
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(0)
})
afterEach(() => {
  vi.useRealTimers()
})

describe('fleetMachine: starting', () => {
  it('writes its lease first, says it is ready once the write settled, then reads the leases', async () => {
    const write = deferred<void>()
    const { actor, store, emitted } = startFleet({ providerHere: true }, (calls) =>
      calls.writeWith(() => write.promise),
    )
    expect(store.calls.writes).toEqual([{ providerActive: true, expiresAt: Infinity }])
    expect(store.calls.reads).toBe(0)
    await settle()
    expect(emitted).toEqual([])
    write.resolve()
    await settle()
    expect(store.calls.reads).toBe(1)
    expect(emitted).toEqual([
      { type: 'fleet.ready' },
      { type: 'fleet.read', providerElsewhere: false, first: true },
    ])
    expect(actor.getSnapshot().context).toMatchObject({ known: true, providerElsewhere: false })
    actor.stop()
  })

  it('is ready and reads even when the write or the read fails', async () => {
    const { actor, emitted } = await running({}, (calls) => {
      calls.writeWith(() => Promise.reject(new Error('locked')))
      calls.readWith(() => Promise.reject(new Error('locked')))
    })
    expect(emitted).toEqual([
      { type: 'fleet.ready' },
      { type: 'fleet.read', providerElsewhere: false, first: true },
    ])
    expect(actor.getSnapshot().context.known).toBe(true)
    actor.stop()
  })

  it('on a durable store, its lease lapses unless renewed', async () => {
    const { actor, store } = await running({ durable: true })
    expect(store.calls.writes).toEqual([{ providerActive: false, expiresAt: LEASE_MS }])
    actor.stop()
  })

  it('tells what the leases say of the other seams’ providers', async () => {
    const { actor, emitted } = await running({}, (calls) =>
      calls.readWith(async () => ({ providerElsewhere: true })),
    )
    expect(emitted.at(-1)).toEqual({ type: 'fleet.read', providerElsewhere: true, first: true })
    expect(actor.getSnapshot().context.providerElsewhere).toBe(true)
    actor.stop()
  })
})

describe('fleetMachine: its lease', () => {
  it('on a process-local store arms no timer at all: its lease never lapses', async () => {
    const { actor, clock, store } = await running()
    expect(clock.armed.size).toBe(0)
    await clock.advance(10 * HEARTBEAT_MS)
    expect(store.calls.renewals).toEqual([])
    actor.stop()
  })

  it('on a durable store is renewed every heartbeat, and each renewal rereads the leases', async () => {
    const { actor, clock, store } = await running({ durable: true })
    expect([...clock.armed.values()].map(({ delay }) => delay)).toEqual([HEARTBEAT_MS])
    await clock.advance(HEARTBEAT_MS - 1)
    expect(store.calls.renewals).toEqual([])
    await clock.advance(1)
    expect(store.calls.renewals).toEqual([
      { providerActive: false, expiresAt: HEARTBEAT_MS + LEASE_MS },
    ])
    expect(store.calls.reads).toBe(2)
    await clock.advance(2 * HEARTBEAT_MS)
    expect(store.calls.renewals.map(({ expiresAt }) => expiresAt)).toEqual([
      HEARTBEAT_MS + LEASE_MS,
      2 * HEARTBEAT_MS + LEASE_MS,
      3 * HEARTBEAT_MS + LEASE_MS,
    ])
    actor.stop()
  })

  it.each([
    ['a process-local store', false],
    ['a durable store', true],
  ])('on %s is written again at once when the provider slot changes', async (_name, durable) => {
    const { actor, store } = await running({ durable })
    actor.send({ type: 'provider.changed', active: true })
    await settle()
    expect(store.calls.writes.map(({ providerActive }) => providerActive)).toEqual([false, true])
    actor.send({ type: 'provider.changed', active: false })
    await settle()
    expect(store.calls.writes.map(({ providerActive }) => providerActive)).toEqual([
      false,
      true,
      false,
    ])
    actor.stop()
  })

  it('a renewal that fails is tried again at the next beat, and the leases are read again all the same', async () => {
    const { actor, clock, store } = await running({ durable: true })
    store.failNext('renew')
    await clock.advance(HEARTBEAT_MS)
    expect(store.calls.renewals).toHaveLength(1)
    expect(store.calls.reads).toBe(2)
    await clock.advance(HEARTBEAT_MS)
    expect(store.calls.renewals.map(({ expiresAt }) => expiresAt)).toEqual([
      HEARTBEAT_MS + LEASE_MS,
      2 * HEARTBEAT_MS + LEASE_MS,
    ])
    actor.stop()
  })

  it('a write that fails stops nothing: the lease is renewed at the next beat with what the slot says', async () => {
    const { actor, clock, store } = await running({ durable: true })
    store.writeWith(() => Promise.reject(new Error('the store is down')))
    actor.send({ type: 'provider.changed', active: true })
    await settle()
    expect(store.calls.writes.map(({ providerActive }) => providerActive)).toEqual([false, true])
    await clock.advance(HEARTBEAT_MS)
    expect(store.calls.renewals).toEqual([
      { providerActive: true, expiresAt: HEARTBEAT_MS + LEASE_MS },
    ])
    actor.stop()
  })

  it('a change while its lease is being written is written right after, with what the slot says last', async () => {
    let hold = deferred<void>()
    const { actor, store } = await running()
    store.writeWith(() => hold.promise)
    actor.send({ type: 'provider.changed', active: true })
    actor.send({ type: 'provider.changed', active: false })
    actor.send({ type: 'provider.changed', active: true })
    expect(store.calls.writes.map(({ providerActive }) => providerActive)).toEqual([false, true])
    const first = hold
    hold = deferred<void>()
    first.resolve()
    await settle()
    expect(store.calls.writes.map(({ providerActive }) => providerActive)).toEqual([
      false,
      true,
      true,
    ])
    hold.resolve()
    await settle()
    expect(store.calls.writes).toHaveLength(3)
    actor.stop()
  })
})

describe('fleetMachine: reading the leases', () => {
  it('rereads when the store says the leases changed', async () => {
    const { actor, store, emitted } = await running()
    store.readWith(async () => ({ providerElsewhere: true }))
    actor.send({ type: 'leases.changed' })
    await settle()
    expect(store.calls.reads).toBe(2)
    expect(emitted.at(-1)).toEqual({ type: 'fleet.read', providerElsewhere: true, first: false })
    actor.stop()
  })

  it('a read that finds what the last one found tells the seam nothing', async () => {
    const { actor, store, emitted } = await running()
    const before = emitted.length
    actor.send({ type: 'leases.changed' })
    await settle()
    expect(store.calls.reads).toBe(2)
    expect(emitted.slice(before)).toEqual([])
    store.readWith(async () => ({ providerElsewhere: true }))
    actor.send({ type: 'leases.changed' })
    await settle()
    store.readWith(async () => ({ providerElsewhere: false }))
    actor.send({ type: 'leases.changed' })
    await settle()
    expect(emitted.slice(before)).toEqual([
      { type: 'fleet.read', providerElsewhere: true, first: false },
      { type: 'fleet.read', providerElsewhere: false, first: false },
    ])
    actor.stop()
  })

  it('a change heard while a read is under way starts the read again: the stale read is dropped', async () => {
    const { actor, store, emitted } = await running()
    const stale = deferred<LeaseRead>()
    const fresh = deferred<LeaseRead>()
    const reads = [stale, fresh]
    store.readWith(() => reads.shift()!.promise)
    actor.send({ type: 'leases.changed' })
    actor.send({ type: 'leases.changed' })
    expect(store.calls.reads).toBe(3)
    const before = emitted.length
    stale.resolve({ providerElsewhere: true })
    await settle()
    expect(emitted.length).toBe(before)
    expect(actor.getSnapshot().context.providerElsewhere).toBe(false)
    fresh.resolve({ providerElsewhere: true })
    await settle()
    expect(emitted.slice(before)).toEqual([
      { type: 'fleet.read', providerElsewhere: true, first: false },
    ])
    expect(actor.getSnapshot().context.providerElsewhere).toBe(true)
    actor.stop()
  })
})

describe('fleetMachine: sweeps for overdue asks', () => {
  it('arms a sweep at the earliest watched deadline, re-armed for an earlier one, not for a later one', async () => {
    const { actor, clock, store, emitted } = await running()
    actor.send({ type: 'deadline.watch', deadline: 30_000 })
    expect([...clock.armed.values()]).toEqual([{ delay: 30_000, dueAt: 30_000 }])
    actor.send({ type: 'deadline.watch', deadline: 20_000 })
    expect([...clock.armed.values()]).toEqual([{ delay: 20_000, dueAt: 20_000 }])
    actor.send({ type: 'deadline.watch', deadline: 25_000 })
    expect([...clock.armed.values()]).toEqual([{ delay: 20_000, dueAt: 20_000 }])
    await clock.advance(19_999)
    expect(store.calls.sweeps).toEqual([])
    await clock.advance(1)
    expect(store.calls.sweeps).toEqual([20_000])
    expect(emitted.at(-1)).toEqual({ type: 'fleet.swept', at: 20_000 })
    // The seam says which deadline to watch next; until then nothing is armed.
    expect(clock.armed.size).toBe(0)
    actor.send({ type: 'deadline.watch', deadline: 25_000 })
    await clock.advance(5_000)
    expect(store.calls.sweeps).toEqual([20_000, 25_000])
    actor.stop()
  })

  it('no deadline to watch any more disarms the sweep', async () => {
    const { actor, clock, store } = await running()
    actor.send({ type: 'deadline.watch', deadline: 30_000 })
    actor.send({ type: 'deadline.watch', deadline: undefined })
    expect(clock.armed.size).toBe(0)
    await clock.advance(60_000)
    expect(store.calls.sweeps).toEqual([])
    actor.stop()
  })

  it('a deadline already past is swept at once', async () => {
    const { actor, clock, store, emitted } = await running()
    await clock.advance(50_000)
    actor.send({ type: 'deadline.watch', deadline: 40_000 })
    await clock.advance(0)
    expect(store.calls.sweeps).toEqual([50_000])
    expect(emitted.at(-1)).toEqual({ type: 'fleet.swept', at: 50_000 })
    actor.stop()
  })

  it('a sweep that fails is tried again a beat later, not at once, and told only once it ran', async () => {
    let failures = 2
    const { actor, clock, store, emitted } = await running({}, (calls) =>
      calls.sweepWith(async () => {
        if (failures-- > 0) throw new Error('database is locked')
      }),
    )
    actor.send({ type: 'deadline.watch', deadline: 1_000 })
    await clock.advance(1_000)
    expect(store.calls.sweeps).toEqual([1_000])
    expect(emitted.filter(({ type }) => type === 'fleet.swept')).toEqual([])
    await clock.advance(HEARTBEAT_MS - 1)
    expect(store.calls.sweeps).toEqual([1_000])
    await clock.advance(1 + HEARTBEAT_MS)
    expect(store.calls.sweeps).toEqual([1_000, 1_000 + HEARTBEAT_MS, 1_000 + 2 * HEARTBEAT_MS])
    expect(emitted.filter(({ type }) => type === 'fleet.swept')).toEqual([
      { type: 'fleet.swept', at: 1_000 + 2 * HEARTBEAT_MS },
    ])
    expect(clock.armed.size).toBe(0)
    actor.stop()
  })
})

describe('fleetMachine: orphans of a dropped seam', () => {
  it('on a process-local store, ends a dropped seam’s orphans when its lease lapses, then rereads', async () => {
    const { actor, clock, store } = await running({}, (calls) =>
      calls.readWith(async () => ({ providerElsewhere: false, nextLapse: LEASE_MS })),
    )
    expect([...clock.armed.values()]).toEqual([{ delay: LEASE_MS, dueAt: LEASE_MS }])
    store.readWith(async () => ({ providerElsewhere: false }))
    await clock.advance(LEASE_MS - 1)
    expect(store.calls.orphans).toEqual([])
    await clock.advance(1)
    expect(store.calls.orphans).toEqual([LEASE_MS])
    expect(store.calls.reads).toBe(2)
    expect(clock.armed.size).toBe(0)
    actor.stop()
  })

  it('a read that finds the lease renewed moves the end of its orphans', async () => {
    const { actor, clock, store } = await running({}, (calls) =>
      calls.readWith(async () => ({ providerElsewhere: false, nextLapse: LEASE_MS })),
    )
    // As a store reads leases: only the ones still live at the read.
    store.readWith(async () =>
      Date.now() < 2 * LEASE_MS
        ? { providerElsewhere: false, nextLapse: 2 * LEASE_MS }
        : { providerElsewhere: false },
    )
    actor.send({ type: 'leases.changed' })
    await settle()
    await clock.advance(LEASE_MS)
    expect(store.calls.orphans).toEqual([])
    await clock.advance(LEASE_MS)
    expect(store.calls.orphans).toEqual([2 * LEASE_MS])
    actor.stop()
  })

  it('an end of orphans that fails rereads the leases all the same, and the next lapse is ended', async () => {
    const { actor, clock, store } = await running({}, (calls) =>
      calls.readWith(async () => ({ providerElsewhere: false, nextLapse: LEASE_MS })),
    )
    store.failNext('orphans')
    // Another dropped seam's lease, live until 2 × LEASE_MS.
    store.readWith(async () =>
      Date.now() < 2 * LEASE_MS
        ? { providerElsewhere: false, nextLapse: 2 * LEASE_MS }
        : { providerElsewhere: false },
    )
    await clock.advance(LEASE_MS)
    expect(store.calls.orphans).toEqual([LEASE_MS])
    expect(store.calls.reads).toBe(2)
    await clock.advance(LEASE_MS)
    expect(store.calls.orphans).toEqual([LEASE_MS, 2 * LEASE_MS])
    actor.stop()
  })

  it('on a durable store leaves orphans to each renewal: no timer for a lapsing lease', async () => {
    const { actor, clock } = await running({ durable: true }, (calls) =>
      calls.readWith(async () => ({ providerElsewhere: false, nextLapse: LEASE_MS })),
    )
    expect([...clock.armed.values()].map(({ delay }) => delay)).toEqual([HEARTBEAT_MS])
    expect(actor.getSnapshot().context.orphanAt).toBeUndefined()
    actor.stop()
  })
})

/** An ask of the seam that ended STORE_FAILED with its ending not written. */
const unwritten = (askId: string) =>
  ({ type: 'ending.unwritten', askId, outcome: storeFailedOutcome() }) as const

describe('fleetMachine: endings left unwritten', () => {
  it('writes them at the next beat, on any store, and forgets each the store took', async () => {
    const { actor, clock, store } = await running()
    expect(clock.armed.size).toBe(0)
    actor.send(unwritten('a'))
    actor.send(unwritten('b'))
    await clock.advance(HEARTBEAT_MS - 1)
    expect(store.calls.endings).toEqual([])
    await clock.advance(1)
    expect(store.calls.endings).toEqual([{ at: HEARTBEAT_MS, askIds: ['a', 'b'] }])
    expect(actor.getSnapshot().context.unwritten).toEqual([])
    expect(clock.armed.size).toBe(0)
    actor.stop()
  })

  it('keeps what the store did not take for the next beat, with what came meanwhile, oldest first', async () => {
    const { actor, clock, store } = await running({}, (calls) =>
      calls.writeEndingsWith(async () => []),
    )
    actor.send(unwritten('a'))
    await clock.advance(HEARTBEAT_MS)
    store.writeEndingsWith(async ([first]) => (first === undefined ? [] : [first.askId]))
    actor.send(unwritten('b'))
    await clock.advance(HEARTBEAT_MS)
    store.writeEndingsWith(async (endings) => endings.map(({ askId }) => askId))
    await clock.advance(HEARTBEAT_MS)
    expect(store.calls.endings).toEqual([
      { at: HEARTBEAT_MS, askIds: ['a'] },
      { at: 2 * HEARTBEAT_MS, askIds: ['a', 'b'] },
      { at: 3 * HEARTBEAT_MS, askIds: ['b'] },
    ])
    expect(actor.getSnapshot().context.unwritten).toEqual([])
    actor.stop()
  })

  it('a round that throws keeps every ending for the next beat', async () => {
    const { actor, clock, store } = await running({}, (calls) =>
      calls.writeEndingsWith(() => Promise.reject(new Error('store down'))),
    )
    actor.send(unwritten('a'))
    await clock.advance(2 * HEARTBEAT_MS)
    expect(store.calls.endings.map(({ at }) => at)).toEqual([HEARTBEAT_MS, 2 * HEARTBEAT_MS])
    expect(actor.getSnapshot().context.unwritten.map(({ askId }) => askId)).toEqual(['a'])
    actor.stop()
  })

  it(`keeps at most ${MAX_UNWRITTEN}: past it the oldest is dropped`, async () => {
    const { actor } = await running()
    for (let index = 0; index <= MAX_UNWRITTEN; index++) actor.send(unwritten(`ask-${index}`))
    const kept = actor.getSnapshot().context.unwritten
    expect(kept).toHaveLength(MAX_UNWRITTEN)
    expect(kept[0]?.askId).toBe('ask-1')
    expect(kept.at(-1)).toEqual({ askId: `ask-${MAX_UNWRITTEN}`, outcome: storeFailedOutcome() })
    actor.stop()
  })

  it('a stop leaves them to the orphan sweeps: nothing more is written', async () => {
    const { actor, clock, store } = await running({ durable: true })
    actor.send(unwritten('a'))
    actor.send({ type: 'fleet.stop' })
    await settle()
    await clock.advance(HEARTBEAT_MS)
    expect(store.calls.endings).toEqual([])
    expect(actor.getSnapshot().status).toBe('done')
  })
})

describe('fleetMachine: rereading the store', () => {
  it('reads the pending asks once the leases are known, and again each time the feed asks', async () => {
    const { actor, clock, store } = await running()
    expect(store.calls.resyncs).toEqual([0])
    actor.send({ type: 'feed.resync' })
    await settle()
    expect(store.calls.resyncs).toEqual([0, 0])
    expect(actor.getSnapshot().matches({ running: { feed: 'synced' } })).toBe(true)
    expect(clock.armed.size).toBe(0)
    actor.stop()
  })

  it('a read that fails is owed: tried again at each beat, on any store, until one succeeds', async () => {
    let failures = 2
    const { actor, clock, store } = await running({}, (calls) =>
      calls.resyncWith(async () => {
        if (failures-- > 0) throw new Error('connection terminated')
      }),
    )
    expect(actor.getSnapshot().matches({ running: { feed: 'owed' } })).toBe(true)
    await clock.advance(HEARTBEAT_MS - 1)
    expect(store.calls.resyncs).toEqual([0])
    await clock.advance(1 + HEARTBEAT_MS)
    expect(store.calls.resyncs).toEqual([0, HEARTBEAT_MS, 2 * HEARTBEAT_MS])
    expect(actor.getSnapshot().matches({ running: { feed: 'synced' } })).toBe(true)
    await clock.advance(3 * HEARTBEAT_MS)
    expect(store.calls.resyncs).toHaveLength(3)
    actor.stop()
  })

  it('the feed asking while a read is owed reads at once; while one is under way, starts it again', async () => {
    const reads = [deferred<void>(), deferred<void>(), deferred<void>()]
    const { actor, clock, store } = await running({}, (calls) =>
      calls.resyncWith(() => reads[calls.calls.resyncs.length - 1]!.promise),
    )
    reads[0]!.reject(new Error('connection terminated'))
    await settle()
    expect(actor.getSnapshot().matches({ running: { feed: 'owed' } })).toBe(true)
    await clock.advance(1_000)
    actor.send({ type: 'feed.resync' })
    actor.send({ type: 'feed.resync' })
    expect(store.calls.resyncs).toEqual([0, 1_000, 1_000])
    reads[1]!.reject(new Error('a read the second one replaced'))
    reads[2]!.resolve()
    await settle()
    expect(actor.getSnapshot().matches({ running: { feed: 'synced' } })).toBe(true)
    expect(clock.armed.size).toBe(0)
    actor.stop()
  })

  it('a stop ends the rereads: an owed one is not tried', async () => {
    const { actor, clock, store } = await running({}, (calls) =>
      calls.resyncWith(() => Promise.reject(new Error('connection terminated'))),
    )
    actor.send({ type: 'fleet.stop' })
    await settle()
    await clock.advance(HEARTBEAT_MS)
    expect(store.calls.resyncs).toEqual([0])
    expect(actor.getSnapshot().status).toBe('done')
  })
})

describe('fleetMachine: stopping', () => {
  it('fleet.stop releases the lease and finishes, leaving no timer', async () => {
    const { actor, clock, store } = await running({ durable: true })
    actor.send({ type: 'deadline.watch', deadline: 30_000 })
    actor.send({ type: 'fleet.stop' })
    await settle()
    expect(store.calls.releases).toBe(1)
    expect(actor.getSnapshot().status).toBe('done')
    expect(clock.armed.size).toBe(0)
  })

  it('a release or a last lease that the store does not take still ends the fleet', async () => {
    const stopped = await running({ durable: true })
    stopped.store.failNext('release')
    stopped.actor.send({ type: 'fleet.stop' })
    await settle()
    expect(stopped.store.calls.releases).toBe(1)
    expect(stopped.actor.getSnapshot().status).toBe('done')
    const crashed = await running()
    crashed.store.failNext('leave')
    crashed.actor.send({ type: 'fleet.crash' })
    await settle()
    expect(crashed.store.calls.left).toHaveLength(1)
    expect(crashed.actor.getSnapshot().status).toBe('done')
  })

  it('fleet.crash on a process-local store leaves a lease that lapses, as a killed process’s would', async () => {
    const { actor, clock, store } = await running({ providerHere: true })
    await clock.advance(7_000)
    actor.send({ type: 'fleet.crash' })
    await settle()
    expect(store.calls.left).toEqual([{ providerActive: true, expiresAt: 7_000 + LEASE_MS }])
    expect(store.calls.releases).toBe(0)
    expect(actor.getSnapshot().status).toBe('done')
  })

  it('fleet.crash on a durable store writes nothing: its last renewal lapses by itself', async () => {
    const { actor, clock, store } = await running({ durable: true })
    actor.send({ type: 'fleet.crash' })
    await settle()
    expect(store.calls).toMatchObject({ left: [], releases: 0 })
    expect(actor.getSnapshot().status).toBe('done')
    expect(clock.armed.size).toBe(0)
  })
})

describe('fleetMachine: every delay is clamped', () => {
  it('a deadline 40 days away arms a timer of at most 2^31−1 ms; the early sweep asks the seam for the next deadline', async () => {
    const { actor, clock, store, emitted } = await running()
    const deadline = 40 * 24 * 3_600_000
    actor.send({ type: 'deadline.watch', deadline })
    expect([...clock.armed.values()].map(({ delay }) => delay)).toEqual([MAX_DELAY_MS])
    await clock.advance(MAX_DELAY_MS)
    expect(store.calls.sweeps).toEqual([MAX_DELAY_MS])
    expect(emitted.at(-1)).toEqual({ type: 'fleet.swept', at: MAX_DELAY_MS })
    actor.send({ type: 'deadline.watch', deadline })
    expect([...clock.armed.values()].map(({ delay }) => delay)).toEqual([deadline - MAX_DELAY_MS])
    actor.stop()
  })

  it('a lease lapsing 40 days away arms a timer of at most 2^31−1 ms', async () => {
    const { actor, clock } = await running({}, (calls) =>
      calls.readWith(async () => ({ providerElsewhere: false, nextLapse: 40 * 24 * 3_600_000 })),
    )
    expect(Math.max(...clock.delays)).toBe(MAX_DELAY_MS)
    actor.stop()
  })
})

describe('fleetMachine: a fresh fleet', () => {
  it('starts knowing nothing of the fleet, with a lease that is not stale', () => {
    const { actor } = startFleet()
    expect(actor.getSnapshot().context).toMatchObject({
      durable: false,
      providerHere: false,
      leaseStale: false,
      providerElsewhere: false,
    })
    actor.stop()
  })
})
