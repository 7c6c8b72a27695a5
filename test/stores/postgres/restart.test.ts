/**
 * The server going away under the store: a cluster of this file's own (the
 * shared test server must stay up for the other files), restarted, stopped
 * and started, and the store's LISTEN connection cut.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import type { AskOutcome, AskStore, StoreChange } from '../../../src/protocol/store/index.js'
import { createPostgresStore } from '../../../src/stores/postgres/index.js'
import type { PostgresStoreEvent } from '../../../src/stores/postgres/index.js'
import { describePostgres, startCluster, withClient } from '../../support/postgres.js'
import type { Cluster } from '../../support/postgres.js'
import { answered, newAsk } from '../store-contract.js'

describePostgres(
  'postgres store across server restarts',
  () => {
    let cluster: Cluster
    beforeAll(async () => {
      cluster = await startCluster()
    }, 120_000)
    afterAll(async () => {
      await cluster?.destroy()
    }, 60_000)

    const opened: AskStore[] = []
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close()
    })

    // Every test starts from empty tables on the cluster's one database.
    const open = (onEvent?: (event: PostgresStoreEvent) => void) => {
      const store = createPostgresStore({
        connectionString: cluster.url,
        pollIntervalMs: 500,
        ...(onEvent === undefined ? {} : { onEvent }),
      })
      opened.push(store)
      return store
    }
    const clear = async () => {
      await withClient(cluster.url, (client) =>
        client.query(`DROP TABLE IF EXISTS askseam_asks, askseam_leases, askseam_notifications, askseam_ask_events,
          askseam_migrations;
          DROP SEQUENCE IF EXISTS askseam_revision`),
      )
    }
    /** A watcher, its changes, and the store's events. */
    const watched = () => {
      const changes: StoreChange[] = []
      const events: PostgresStoreEvent[] = []
      const store = open((event) => events.push(event))
      store.watch((change) => changes.push(change))
      return { store, changes, events }
    }
    const until = async (check: () => boolean, what: string, limitMs = 30_000) => {
      const end = Date.now() + limitMs
      while (!check()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    /** Retries a call the server's going away may fail, as a seam's next attempt would. */
    const eventually = async <T>(call: () => Promise<T>, limitMs = 30_000): Promise<T> => {
      const end = Date.now() + limitMs
      for (;;) {
        try {
          return await call()
        } catch (error: unknown) {
          if (Date.now() > end) throw error
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      }
    }
    const reconnects = (events: PostgresStoreEvent[]) =>
      events.filter((e) => e.type === 'listener.connected' && e.reconnect).length

    it('reconnects after a restart mid-ask, resyncs, and sees a settle committed meanwhile', async () => {
      await clear()
      const asker = watched()
      const answerer = open()
      const ask = newAsk({ key: 'restart-key', deadline: Date.now() + 600_000 })
      await asker.store.admit(ask)
      await until(() => asker.events.some((e) => e.type === 'listener.connected'), 'the listener')

      await cluster.restart()
      // The first write after the restart: the asker's listener is still
      // backing off or reconnecting, so its notification may never reach it.
      const settled = await eventually(() => answerer.settle(ask.askId, answered, 1234))
      expect(settled).toMatchObject({ record: { state: 'settled', outcome: answered }, won: true })

      await until(() => reconnects(asker.events) >= 1, 'the reconnect')
      expect(asker.events.some((e) => e.type === 'listener.lost')).toBe(true)
      await until(() => asker.changes.some((c) => c.type === 'resync'), 'a resync')
      // Nothing is lost: the asker reads the answer, and the key replays it.
      expect(await asker.store.get(ask.askId)).toEqual({
        ...ask,
        state: 'settled',
        outcome: answered,
        settledAt: 1234,
      })
      const again = await asker.store.admit(newAsk({ key: 'restart-key' }))
      expect(again).toMatchObject({ status: 'existing', record: { askId: ask.askId } })
      // And the feed works again after it.
      asker.changes.length = 0
      const next = newAsk()
      await answerer.admit(next)
      await until(
        () => asker.changes.some((c) => c.type === 'ask.admitted' && c.record.askId === next.askId),
        'the next admission',
      )
    }, 120_000)

    it('resyncs after its LISTEN connection is cut while the server stays up', async () => {
      await clear()
      const asker = watched()
      const answerer = open()
      const ask = newAsk()
      await asker.store.admit(ask)
      await until(() => asker.events.some((e) => e.type === 'listener.connected'), 'the listener')
      asker.changes.length = 0
      const cut = await withClient(cluster.url, (client) =>
        client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'askseam-listener'`),
      )
      expect(cut.rowCount).toBe(1)
      await answerer.settle(ask.askId, answered, 99)
      await until(() => reconnects(asker.events) >= 1, 'the reconnect')
      await until(
        () =>
          asker.changes.some(
            (c) =>
              c.type === 'resync' || (c.type === 'ask.settled' && c.record.askId === ask.askId),
          ),
        'the resync',
      )
      expect(asker.changes).toContainEqual({ type: 'resync' })
      expect(await asker.store.get(ask.askId)).toMatchObject({ outcome: answered })
    }, 60_000)

    it('is created while the server is down, rejects calls, and works once it is up', async () => {
      await clear()
      await cluster.stop()
      const changes: StoreChange[] = []
      // Creating the store must not throw, nor touch the network.
      const store = open()
      try {
        const unwatch = store.watch((change) => changes.push(change))
        await expect(store.pending()).rejects.toThrow()
        await expect(store.admit(newAsk())).rejects.toThrow()
        await expect(
          store.heartbeat({ seamId: 's', providerActive: true, expiresAt: 1 }),
        ).rejects.toThrow()
        expect(changes).toEqual([])
        unwatch()
      } finally {
        await cluster.start()
      }
      const changesAfter: StoreChange[] = []
      store.watch((change) => changesAfter.push(change))
      const ask = newAsk()
      expect(await eventually(() => store.admit(ask))).toMatchObject({ status: 'admitted' })
      expect((await store.pending()).map((r) => r.askId)).toEqual([ask.askId])
      await until(() => changesAfter.some((c) => c.type === 'resync'), 'the listener')
    }, 120_000)

    it('fails calls while the server is stopped and recovers without being reopened', async () => {
      await clear()
      const { store, events } = watched()
      const ask = newAsk()
      await store.admit(ask)
      await until(() => events.some((e) => e.type === 'listener.connected'), 'the listener')
      await cluster.stop()
      try {
        await expect(store.get(ask.askId)).rejects.toThrow()
        await expect(store.settle(ask.askId, answered, 5)).rejects.toThrow()
        await until(() => events.some((e) => e.type === 'listener.failed'), 'a failed reconnect')
      } finally {
        await cluster.start()
      }
      const outcome: AskOutcome = answered
      expect(await eventually(() => store.settle(ask.askId, outcome, 6))).toMatchObject({
        record: { settledAt: 6 },
        won: true,
      })
      await until(() => reconnects(events) >= 1, 'the reconnect')
    }, 120_000)
  },
  { needsBinaries: true },
)
