import assert from 'node:assert/strict'
import { answered, newAsk } from './contract-fixtures.js'
import type { CheckCase, StorageHandles } from './contract-fixtures.js'
import type { NotificationLedger } from './types.js'

let sequence = 0

/** A fresh event id (and its ask) no other check writes. */
function newEvent(): { eventId: string; askId: string } {
  sequence += 1
  const askId = `contract-${process.pid}-${Date.now()}-${sequence}`
  return { eventId: `${askId}.pending`, askId }
}

/**
 * Runs `body` with the ledger of two handles on the storage: a store
 * without the (optional) ledger has nothing to check.
 */
function withLedgers(
  body: (ledger: NotificationLedger, other: NotificationLedger) => Promise<void>,
): (handles: StorageHandles) => Promise<void> {
  return async ({ store, reopen }) => {
    if (store.notifications === undefined) return
    const other = (await reopen()).notifications
    assert.ok(other !== undefined, 'every handle on the storage has the notification ledger')
    await body(store.notifications, other)
  }
}

/** @internal The contract's checks of the notification ledger (DESIGN §13), for a store that has one. */
export const notificationChecks: readonly CheckCase[] = [
  {
    name: 'notification ledger: gives an event to one holder until its claim lapses, and lets the holder renew it',
    body: withLedgers(async (ledger, other) => {
      const event = newEvent()
      assert.deepEqual(
        await ledger.claim({ ...event, holder: 'a', now: 1_000, expiresAt: 2_000 }),
        { status: 'claimed' },
      )
      assert.deepEqual(await other.claim({ ...event, holder: 'b', now: 1_999, expiresAt: 3_000 }), {
        status: 'held',
        holder: 'a',
        expiresAt: 2_000,
      })
      assert.deepEqual(
        await ledger.claim({ ...event, holder: 'a', now: 1_500, expiresAt: 2_500 }),
        { status: 'claimed' },
      )
      assert.deepEqual(await other.claim({ ...event, holder: 'b', now: 2_500, expiresAt: 4_000 }), {
        status: 'claimed',
      })
      assert.deepEqual(await ledger.unfinished(), [{ ...event, holder: 'b', expiresAt: 4_000 }])
    }),
  },
  {
    name: 'notification ledger: a finished event is never claimed again, and what it owes is kept unclaimed',
    body: withLedgers(async (ledger, other) => {
      const event = newEvent()
      const owed = { eventId: `${event.askId}.settled`, askId: event.askId }
      await ledger.claim({ ...event, holder: 'a', now: 1_000, expiresAt: 2_000 })
      await ledger.finish({ eventId: event.eventId, ending: 'delivered', at: 1_100, owes: owed })
      // A second finish changes nothing, and owes nothing twice.
      await other.finish({ eventId: event.eventId, ending: 'given-up', at: 1_200, owes: owed })
      assert.deepEqual(
        await other.claim({ ...event, holder: 'b', now: 9_000, expiresAt: 10_000 }),
        {
          status: 'finished',
          ending: 'delivered',
        },
      )
      assert.deepEqual(await other.unfinished(), [owed])
      assert.deepEqual(
        await other.claim({
          ...owed,
          holder: 'b',
          now: 9_000,
          expiresAt: 10_000,
          recordedOnly: true,
        }),
        { status: 'claimed' },
      )
      // recordedOnly claims nothing the ledger lacks, and writes nothing.
      const unknown = newEvent()
      assert.deepEqual(
        await ledger.claim({ ...unknown, holder: 'a', now: 1, expiresAt: 2, recordedOnly: true }),
        { status: 'unrecorded' },
      )
      assert.deepEqual(
        (await ledger.unfinished()).map((entry) => entry.eventId),
        [owed.eventId],
      )
    }),
  },
  {
    name: 'notification ledger: a released claim is free at once, and only its holder releases it',
    body: withLedgers(async (ledger, other) => {
      const event = newEvent()
      await ledger.claim({ ...event, holder: 'a', now: 1_000, expiresAt: 60_000 })
      await other.release(event.eventId, 'b')
      assert.equal(
        (await other.claim({ ...event, holder: 'b', now: 1_001, expiresAt: 2_000 })).status,
        'held',
      )
      await ledger.release(event.eventId, 'a')
      assert.deepEqual(await ledger.unfinished(), [event])
      assert.deepEqual(await other.claim({ ...event, holder: 'b', now: 1_002, expiresAt: 2_000 }), {
        status: 'claimed',
      })
    }),
  },
  {
    name: 'notification ledger: lists the unfinished events by event id, whatever order they came in',
    body: withLedgers(async (ledger, other) => {
      const { askId } = newEvent()
      const event = (name: string) => ({ eventId: `${askId}.${name}`, askId })
      const [first, second, third, fourth] = [event('a'), event('b'), event('c'), event('d')]
      await ledger.claim({ ...fourth, holder: 'a', now: 1_000, expiresAt: 2_000 })
      await other.finish({ eventId: fourth.eventId, ending: 'given-up', at: 1_100, owes: second })
      await other.claim({ ...third, holder: 'b', now: 1_200, expiresAt: 2_000 })
      await ledger.claim({ ...first, holder: 'a', now: 1_300, expiresAt: 2_000 })
      assert.deepEqual(await other.unfinished(), [
        { ...first, holder: 'a', expiresAt: 2_000 },
        second,
        { ...third, holder: 'b', expiresAt: 2_000 },
      ])
    }),
  },
  {
    name: 'notification ledger: of claims made at once from two handles, one is taken',
    body: withLedgers(async (ledger, other) => {
      const events = Array.from({ length: 10 }, newEvent)
      for (const event of events) {
        const results = await Promise.all([
          ledger.claim({ ...event, holder: 'a', now: 1_000, expiresAt: 5_000 }),
          other.claim({ ...event, holder: 'b', now: 1_000, expiresAt: 5_000 }),
        ])
        assert.deepEqual(results.map((result) => result.status).sort(), ['claimed', 'held'])
      }
    }),
  },
  {
    name: 'notification ledger: purge forgets the events of the asks it deletes, and keeps the others',
    async body({ store }) {
      const ledger = store.notifications
      if (ledger === undefined) return
      const purged = newAsk()
      const kept = newAsk()
      for (const ask of [purged, kept]) await store.admit(ask)
      await store.settle(purged.askId, answered, 1_000)
      for (const ask of [purged, kept]) {
        const eventId = `${ask.askId}.pending`
        await ledger.claim({ eventId, askId: ask.askId, holder: 'a', now: 1, expiresAt: 2 })
        await ledger.finish({
          eventId,
          ending: 'delivered',
          at: 3,
          owes: { eventId: `${ask.askId}.settled`, askId: ask.askId },
        })
      }
      assert.equal(await store.purge({ settledBefore: 2_000 }), 1)
      assert.deepEqual(await ledger.unfinished(), [
        { eventId: `${kept.askId}.settled`, askId: kept.askId },
      ])
      const again = { eventId: `${purged.askId}.pending`, askId: purged.askId }
      assert.deepEqual(await ledger.claim({ ...again, holder: 'b', now: 4, expiresAt: 5 }), {
        status: 'claimed',
      })
    },
  },
]
