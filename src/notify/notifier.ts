import { randomUUID } from 'node:crypto'
import { createActor, fromPromise, toPromise } from 'xstate'
import { createStoreReads } from '../protocol/internal.js'
import type { StoreChange, StoreReads } from '../protocol/internal.js'
import { createDeliveries } from './deliveries.js'
import type { Deliveries } from './deliveries.js'
import { resolveOptions } from './options.js'
import type { NotifierOptions, ResolvedNotifierOptions } from './options.js'
import { eventOf } from './payload.js'
import { resyncMachine } from './resync.machine.js'

/** A running notifier: {@link startNotifier}'s answer. */
export interface Notifier {
  /**
   * Stops sending: every delivery under way is stopped and the claims it
   * held are released, so another notifier on the store (or this one,
   * restarted) sends those events. Does not close the store. Called
   * again, answers when the first call does.
   */
  close(): Promise<void>
}

/**
 * Announces a store's asks to a webhook (DESIGN §13): `ask.pending` when an
 * ask has waited `notifyAfterMs`, `ask.reminder` every `remindEveryMs` while
 * it waits (at most `maxReminders`), one `ask.escalated` after
 * `escalateAfterMs`, and `ask.settled` when an ask whose `ask.pending` was
 * delivered settles. Each is signed as the Standard Webhooks specification
 * says and retried with backoff until delivered; several notifiers on one
 * store send each event once between them (a claim in the store's
 * notification ledger), and an event not delivered when its notifier stops
 * is sent by another, or after a restart. The notifier follows the store
 * (its change feed and its pending asks): a seam needs nothing to be
 * announced.
 *
 * Throws a `UserQuestionError` coded `INVALID_REQUEST` (`details.field`
 * names the option) at once for a store without a notification ledger, a
 * secret that is not `whsec_` + base64, a URL that is not http(s), a
 * negative or non-numeric duration, or a `maxInFlight` that is not a whole
 * number above 0.
 *
 * @example
 * ```ts
 * import { startNotifier } from 'askseam/notify'
 * import { createSqliteStore } from 'askseam/sqlite'
 *
 * const store = createSqliteStore({ path: '.askseam/asks.db' })
 * const notifier = startNotifier({
 *   store,
 *   webhook: { url: 'https://hooks.example.com/askseam', secret: process.env.WEBHOOK_SECRET! },
 *   consoleUrl: 'http://127.0.0.1:4000/',
 *   remindEveryMs: 15 * 60_000,
 * })
 * // On shutdown:
 * await notifier.close()
 * await store.close()
 * ```
 */
export function startNotifier(options: NotifierOptions): Notifier {
  const settings = resolveOptions(options)
  const { store, ledger, clock } = settings
  const holder = `notifier-${randomUUID()}`
  const now = (): number => (clock === undefined ? Date.now() : clock.now())
  const deliveries = createDeliveries({ settings, holder, now, asks: new Map() })
  const reads = createStoreReads()
  const reader = createReader(settings, deliveries, reads, now)

  // Heard no more after close() (unwatched); the stopped deliveries take up nothing.
  const onChange = (change: StoreChange): void => {
    if (change.type === 'ask.admitted') deliveries.follow(change.record)
    else if (change.type === 'ask.settled') {
      reads.settled(change.record.askId)
      deliveries.settled(change.record)
    } else if (change.type === 'resync') reader.read()
  }
  const unwatch = store.watch(onChange)
  reader.read()

  const close = async (): Promise<void> => {
    unwatch()
    const reading = reader.close()
    const held = deliveries.stop()
    await reading
    await Promise.all(held.map((eventId) => ledger.release(eventId, holder).catch(() => undefined)))
  }
  let closing: Promise<void> | undefined
  return {
    // Once: a second call answers when the first is done.
    close: () => (closing ??= close()),
  }
}

/**
 * Reads the store whole, at start and whenever its feed says it may have
 * missed changes: its pending asks are followed, asks that settled unseen
 * are settled, and the ledger's unfinished events (left by a notifier that
 * stopped) are sent. When to read, and again after a failure, is
 * `resyncMachine`'s.
 */
function createReader(
  settings: ResolvedNotifierOptions,
  deliveries: Deliveries,
  reads: StoreReads,
  now: () => number,
) {
  const { store, ledger, clock } = settings
  const resync = async (): Promise<void> => {
    const { value: pending, settledMeanwhile } = await reads.read(() => store.pending())
    const still = new Set(pending.map((record) => record.askId))
    for (const record of pending) {
      if (!settledMeanwhile.has(record.askId)) deliveries.follow(record)
    }
    for (const askId of deliveries.followedAsks()) {
      if (still.has(askId)) continue
      const record = await store.get(askId)
      if (record === undefined) deliveries.unfollow(askId)
      else if (record.state === 'settled') deliveries.settled(record)
    }
    for (const entry of await ledger.unfinished()) {
      const event = eventOf(entry.eventId, entry.askId)
      // Read after a close: the deliveries, stopped, start nothing.
      if (event === undefined) continue
      if (event.kind === 'settled') {
        // Owed, and sent once its ask settles (the feed says when, if it has not yet).
        const record = await store.get(entry.askId)
        if (record !== undefined && record.state === 'pending') continue
        if (record !== undefined) deliveries.remember(record)
      }
      deliveries.start(event, now())
    }
  }

  const actor = createActor(
    resyncMachine.provide({ actors: { resync: fromPromise(() => resync()) } }),
    clock === undefined ? {} : { clock },
  )
  actor.start()

  return {
    /** Asks for a read; once closing or closed, the machine takes up none. */
    read: (): void => actor.send({ type: 'read' }),
    /** Stops reading; answers once a read under way is over. */
    close(): Promise<void> {
      actor.send({ type: 'close' })
      return toPromise(actor).then(() => undefined)
    },
  }
}
