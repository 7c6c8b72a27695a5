import assert from 'node:assert/strict'
import { ownerGoneOutcome } from '../../vocabulary/index.js'
import { newAsk } from './contract-fixtures.js'
import type { CheckCase } from './contract-fixtures.js'
import { LEASE_RETENTION_MS } from './types.js'
import type { SeamLease } from './types.js'

const bySeam = (leases: SeamLease[]): SeamLease[] =>
  leases.sort((a, b) => (a.seamId < b.seamId ? -1 : 1))

/** @internal The contract's checks of leases and of `endOrphans`. */
export const leaseChecks: readonly CheckCase[] = [
  {
    name: 'ends keyless asks of a seam without a live lease, and keeps keyed ones',
    async body({ store }) {
      await store.heartbeat({ seamId: 'alive', providerActive: false, expiresAt: 10_000 })
      await store.heartbeat({ seamId: 'expired', providerActive: true, expiresAt: 500 })
      const ofAlive = newAsk({ ownerSeamId: 'alive' })
      const ofExpired = newAsk({ ownerSeamId: 'expired' })
      const ofUnknown = newAsk({ ownerSeamId: 'never-seen' })
      const keyed = newAsk({ ownerSeamId: 'expired', key: 'survives' })
      for (const ask of [ofAlive, ofExpired, ofUnknown, keyed]) await store.admit(ask)
      const ended = await store.endOrphans(1_000)
      assert.deepEqual(ended.map((r) => r.askId).sort(), [ofExpired.askId, ofUnknown.askId].sort())
      for (const record of ended) {
        assert.deepEqual(record.outcome, ownerGoneOutcome())
        assert.deepEqual(await store.get(record.askId), record)
      }
      assert.deepEqual(
        (await store.pending()).map((r) => r.askId).sort(),
        [ofAlive.askId, keyed.askId].sort(),
      )
    },
  },
  {
    name: 'deletes leases long expired when it ends orphans, and keeps the others',
    async body({ store, reopen }) {
      const other = await reopen()
      const now = 1_700_000_000_000
      await store.heartbeat({
        seamId: 'long-dead',
        providerActive: true,
        expiresAt: now - LEASE_RETENTION_MS,
      })
      await store.heartbeat({
        seamId: 'lately-dead',
        providerActive: false,
        expiresAt: now - LEASE_RETENTION_MS + 1,
      })
      await store.heartbeat({ seamId: 'alive', providerActive: true, expiresAt: now + 1_000 })
      // A live seam's orphan sweep, in another process.
      await other.endOrphans(now)
      // Read as of long ago, when all three were live: only the long-dead one is gone.
      const kept = await store.leases(0)
      assert.deepEqual(kept.map((lease) => lease.seamId).sort(), ['alive', 'lately-dead'])
      assert.deepEqual(await store.leases(now), [
        { seamId: 'alive', providerActive: true, expiresAt: now + 1_000 },
      ])
    },
  },
  {
    name: 'counts a lease live until the millisecond it expires, not at it',
    async body({ store }) {
      await store.heartbeat({ seamId: 'edge', providerActive: true, expiresAt: 3_000 })
      assert.deepEqual(
        (await store.leases(2_999)).map((lease) => lease.seamId),
        ['edge'],
      )
      assert.deepEqual(await store.leases(3_000), [])
    },
  },
  {
    name: 'keeps leases: renewed, filtered by time, released',
    async body({ store, reopen }) {
      const other = await reopen()
      await store.heartbeat({ seamId: 's1', providerActive: false, expiresAt: 1_000 })
      await other.heartbeat({ seamId: 's2', providerActive: true, expiresAt: 2_000 })
      await store.heartbeat({ seamId: 's1', providerActive: true, expiresAt: 3_000 })
      await other.heartbeat({ seamId: 's3', providerActive: false, expiresAt: 4_000 })
      assert.deepEqual(bySeam(await other.leases(1_500)), [
        { seamId: 's1', providerActive: true, expiresAt: 3_000 },
        { seamId: 's2', providerActive: true, expiresAt: 2_000 },
        { seamId: 's3', providerActive: false, expiresAt: 4_000 },
      ])
      assert.deepEqual(
        bySeam(await store.leases(2_500)).map((l) => l.seamId),
        ['s1', 's3'],
      )
      await other.release('s1')
      assert.deepEqual(bySeam(await store.leases(0)), [
        { seamId: 's2', providerActive: true, expiresAt: 2_000 },
        { seamId: 's3', providerActive: false, expiresAt: 4_000 },
      ])
    },
  },
]
