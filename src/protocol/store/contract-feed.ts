import assert from 'node:assert/strict'
import { timeoutOutcome } from '../../vocabulary/index.js'
import { answered, dayBehind, heard, newAsk, until } from './contract-fixtures.js'
import type { CheckCase } from './contract-fixtures.js'
import type { StoreChange } from './types.js'

/** @internal The contract's checks of `watch` and `purge`. */
export const feedChecks: readonly CheckCase[] = [
  {
    name: 'tells watchers of asks admitted and settled through another handle, until they unwatch',
    async body({ store, reopen }) {
      const other = await reopen()
      const seen: StoreChange[] = []
      const unwatch = store.watch((change) => seen.push(change))
      // Watches on beside the listener that leaves, so the feed stays live and
      // shows when the listener would have heard a change.
      const probe: StoreChange[] = []
      store.watch((change) => probe.push(change))
      const ask = newAsk()
      await other.admit(ask)
      await until(() => heard(seen, 'ask.admitted', ask.askId), 'the admission')
      seen.length = 0
      await other.settle(ask.askId, answered, 5)
      await until(() => heard(seen, 'ask.settled', ask.askId), 'the settlement')
      const settled = seen.find((c) => c.type === 'ask.settled')
      if (settled !== undefined && settled.type === 'ask.settled') {
        assert.deepEqual(settled.record.outcome, answered)
      }
      // A second unwatch is a no-op: it takes no other listener with it.
      unwatch()
      unwatch()
      seen.length = 0
      probe.length = 0
      const later = newAsk()
      await other.admit(later)
      await until(() => heard(probe, 'ask.admitted', later.askId), 'the probe to hear of it')
      assert.deepEqual(seen, [])
    },
  },
  {
    name: 'tells watchers nothing of an admission that found its key held',
    async body({ store, reopen }) {
      const other = await reopen()
      const seen: StoreChange[] = []
      store.watch((change) => seen.push(change))
      const key = `held-${Date.now()}-${Math.random()}`
      const held = newAsk({ key })
      await other.admit(held)
      assert.equal((await other.admit(newAsk({ key }))).status, 'existing')
      // A later admission marks where the feed has reached.
      const marker = newAsk()
      await other.admit(marker)
      await until(() => heard(seen, 'ask.admitted', marker.askId), 'the later admission')
      // Once, or not at all when a resync stood for it (a feed that began late).
      const heldHeard = seen.filter(
        (c) => c.type === 'ask.admitted' && c.record.askId === held.askId,
      )
      assert.ok(heldHeard.length <= 1, `the held ask was told ${heldHeard.length} times`)
    },
  },
  {
    name: 'tells watchers of an ask another handle ended with the timeout in place of a late answer',
    async body({ store, reopen }) {
      const other = await reopen()
      const seen: StoreChange[] = []
      store.watch((change) => seen.push(change))
      const ask = newAsk({ deadline: dayBehind() })
      await other.admit(ask)
      await until(() => heard(seen, 'ask.admitted', ask.askId), 'the admission')
      seen.length = 0
      // The writer lost, but the write ended the ask: every watcher must learn of it.
      assert.equal((await other.settle(ask.askId, answered, Date.now()))?.won, false)
      await until(() => heard(seen, 'ask.settled', ask.askId), 'the settlement')
      const settled = seen.find((c) => c.type === 'ask.settled')
      if (settled !== undefined && settled.type === 'ask.settled') {
        assert.deepEqual(settled.record.outcome, timeoutOutcome(ask))
      }
    },
  },
  {
    name: 'tells watchers when another handle changes a lease',
    async body({ store, reopen }) {
      const other = await reopen()
      const seen: StoreChange[] = []
      store.watch((change) => seen.push(change))
      await other.heartbeat({
        seamId: 'fresh',
        providerActive: true,
        expiresAt: Date.now() + 10_000,
      })
      await until(
        () => seen.some((c) => c.type === 'leases.changed' || c.type === 'resync'),
        'the lease change',
      )
    },
  },
  {
    name: 'purges settled asks before a time and frees their keys',
    async body({ store }) {
      const old = newAsk({ key: 'old-key' })
      const recent = newAsk()
      const open = newAsk()
      for (const ask of [old, recent, open]) await store.admit(ask)
      await store.settle(old.askId, answered, 100)
      await store.settle(recent.askId, answered, 300)
      const atTheLine = newAsk()
      await store.admit(atTheLine)
      await store.settle(atTheLine.askId, answered, 200)
      assert.equal(await store.purge({ settledBefore: 200 }), 1)
      assert.notEqual(await store.get(atTheLine.askId), undefined)
      assert.equal(await store.get(old.askId), undefined)
      assert.notEqual(await store.get(recent.askId), undefined)
      assert.notEqual(await store.get(open.askId), undefined)
      assert.equal((await store.admit(newAsk({ key: 'old-key' }))).status, 'admitted')
    },
  },
  {
    name: 'tells watchers to resync when another handle purges asks',
    async body({ store, reopen }) {
      const other = await reopen()
      const old = newAsk()
      await store.admit(old)
      await store.settle(old.askId, answered, 100)
      const seen: StoreChange[] = []
      store.watch((change) => seen.push(change))
      // Once the watch is surely live (it reported the probe, or said resync as a feed that
      // connects first does), only the purge can speak.
      const probe = newAsk()
      await other.admit(probe)
      await until(() => heard(seen, 'ask.admitted', probe.askId), 'the watch to start')
      seen.length = 0
      assert.equal(await other.purge({ settledBefore: 50 }), 0)
      assert.equal(await other.purge({ settledBefore: 200 }), 1)
      // The watcher may never have read the settlement of an ask it still shows.
      await until(() => seen.some((c) => c.type === 'resync'), 'the resync')
    },
  },
]
