import { randomUUID } from 'node:crypto'
import { createActor, fromPromise } from 'xstate'
import type { Actor } from 'xstate'
import { webhookDeliveryMachine } from '../machines/index.js'
import type {
  WebhookAskRead,
  WebhookClaimInput,
  WebhookClaimOutput,
  WebhookDeliveryOutput,
  WebhookFinishInput,
  WebhookSendOutput,
} from '../machines/index.js'
import type { AskRecord, StoreChange } from '../protocol/internal.js'
import { resolveOptions } from './options.js'
import type { NotifierOptions } from './options.js'
import { eventIdOf, eventOf, payloadOf } from './payload.js'
import type { NotifierEvent } from './payload.js'
import { sendWebhook } from './send.js'

/** A running notifier: {@link startNotifier}'s answer. */
export interface Notifier {
  /**
   * Stops sending: every delivery under way is stopped and the claims it
   * held are released, so another notifier on the store (or this one,
   * restarted) sends those events. Does not close the store.
   */
  close(): Promise<void>
}

type DeliveryActor = Actor<typeof webhookDeliveryMachine>

/** How long a failed read of the store waits before the notifier reads it again. */
const RESYNC_RETRY_MS = 1_000

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
 * secret that is not `whsec_` + base64, a URL that is not http(s), or a
 * negative or non-numeric duration.
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
  /** The running delivery of each event, by event id. */
  const deliveries = new Map<string, DeliveryActor>()
  /** The event ids of each ask's running deliveries. */
  const byAsk = new Map<string, Set<string>>()
  /** The latest record of each ask a delivery is about: what a payload is built from. */
  const asks = new Map<string, AskRecord>()
  /** Pending asks whose events are scheduled. */
  const followed = new Set<string>()
  let closed = false

  const machine = webhookDeliveryMachine.provide({
    actors: {
      claim: fromPromise<WebhookClaimOutput, WebhookClaimInput>(async ({ input }) => {
        const from = now()
        const result = await ledger.claim({
          eventId: input.eventId,
          askId: input.askId,
          holder,
          now: from,
          expiresAt: from + input.holdMs,
          ...(input.recordedOnly ? { recordedOnly: true } : {}),
        })
        const at = now()
        return result.status === 'held'
          ? { at, status: 'held', expiresAt: result.expiresAt }
          : { at, status: result.status }
      }),
      readAsk: fromPromise<WebhookAskRead, { askId: string }>(async ({ input }) => {
        const record = await store.get(input.askId)
        if (record === undefined) return { at: now(), state: 'missing' }
        asks.set(record.askId, record)
        return { at: now(), state: record.state }
      }),
      send: fromPromise<
        WebhookSendOutput,
        { eventId: string; askId: string; attempt: number; dueAt: number }
      >(async ({ input, signal }) => {
        const record = asks.get(input.askId)
        const event = eventOf(input.eventId, input.askId)
        if (record === undefined || event === undefined) {
          return { at: now(), result: 'failed', failure: 'the ask is not known' }
        }
        const at = event.kind === 'settled' ? (record.settledAt ?? input.dueAt) : input.dueAt
        const body = JSON.stringify(payloadOf(event, record, at, settings.consoleUrl))
        return sendWebhook(
          {
            url: settings.url,
            key: settings.key,
            id: input.eventId,
            body,
            timeoutMs: settings.attemptTimeoutMs,
            // Aborted when the actor stops, as close() stops every one.
            signal,
          },
          now,
        )
      }),
      finish: fromPromise<void, WebhookFinishInput>(async ({ input }) => {
        const owesSettlement = input.kind === 'pending' && input.ending === 'delivered'
        await ledger.finish({
          eventId: input.eventId,
          ending: input.ending,
          at: now(),
          ...(owesSettlement
            ? {
                owes: {
                  eventId: eventIdOf({ kind: 'settled', askId: input.askId }),
                  askId: input.askId,
                },
              }
            : {}),
        })
      }),
    },
  })

  /** Starts the delivery of `event`, due at `dueAt`, unless one runs already. */
  const start = (event: NotifierEvent, dueAt: number): void => {
    const eventId = eventIdOf(event)
    if (closed || deliveries.has(eventId)) return
    const actor = createActor(machine, {
      input: {
        eventId,
        askId: event.askId,
        kind: event.kind,
        dueAt,
        now: now(),
        attemptTimeoutMs: settings.attemptTimeoutMs,
        giveUpAfterMs: settings.giveUpAfterMs,
      },
      ...(clock === undefined ? {} : { clock }),
    })
    deliveries.set(eventId, actor)
    let ofAsk = byAsk.get(event.askId)
    if (ofAsk === undefined) byAsk.set(event.askId, (ofAsk = new Set()))
    ofAsk.add(eventId)
    let chained = false
    actor.subscribe({
      next: (snapshot) => {
        // The next reminder is scheduled once this one falls due.
        if (!chained && event.kind === 'reminder' && snapshot.value !== 'due') {
          chained = true
          remindAgain(event)
        }
      },
      complete: () => ended(event, actor, actor.getSnapshot().output),
      error: () => ended(event, actor, undefined),
    })
    actor.start()
  }

  const remindAgain = (event: NotifierEvent): void => {
    const next = (event.reminder ?? 1) + 1
    const record = asks.get(event.askId)
    const every = settings.remindEveryMs
    if (every === undefined || next > settings.maxReminders || record === undefined) return
    if (!followed.has(event.askId)) return
    start({ kind: 'reminder', askId: event.askId, reminder: next }, firstDue(record) + next * every)
  }

  const ended = (
    event: NotifierEvent,
    actor: DeliveryActor,
    output: WebhookDeliveryOutput | undefined,
  ): void => {
    const eventId = eventIdOf(event)
    if (deliveries.get(eventId) === actor) deliveries.delete(eventId)
    byAsk.get(event.askId)?.delete(eventId)
    // Its ask settled while `ask.pending` was on its way: the settlement it now owes goes out.
    if (
      event.kind === 'pending' &&
      output?.ending === 'delivered' &&
      asks.get(event.askId)?.state === 'settled'
    ) {
      start({ kind: 'settled', askId: event.askId }, now())
    }
    if ((byAsk.get(event.askId)?.size ?? 0) === 0 && !followed.has(event.askId)) {
      byAsk.delete(event.askId)
      asks.delete(event.askId)
    }
  }

  const firstDue = (record: AskRecord): number => record.startedAt + settings.notifyAfterMs

  /** Schedules a pending ask's events (once). */
  const follow = (record: AskRecord): void => {
    if (closed || record.state !== 'pending' || followed.has(record.askId)) return
    followed.add(record.askId)
    asks.set(record.askId, record)
    const base = firstDue(record)
    start({ kind: 'pending', askId: record.askId }, base)
    const every = settings.remindEveryMs
    if (every !== undefined && settings.maxReminders > 0) {
      // After a restart, the latest reminder already due; none of those before it.
      const latest = Math.floor((now() - base) / every)
      const first = Math.max(1, Math.min(settings.maxReminders, latest))
      start({ kind: 'reminder', askId: record.askId, reminder: first }, base + first * every)
    }
    if (settings.escalateAfterMs !== undefined) {
      start({ kind: 'escalated', askId: record.askId }, record.startedAt + settings.escalateAfterMs)
    }
  }

  /** An ask settled: its reminders and escalation stop, and its settlement goes out if it is owed. */
  const settled = (record: AskRecord): void => {
    if (closed) return
    followed.delete(record.askId)
    asks.set(record.askId, record)
    for (const eventId of byAsk.get(record.askId) ?? []) {
      deliveries.get(eventId)?.send({ type: 'ask.settled' })
    }
    // Claimed only where the ledger records it as owed: where `ask.pending` was delivered.
    start({ kind: 'settled', askId: record.askId }, now())
  }

  /** Reads the store whole: its pending asks, and the ledger's unfinished events. */
  const resync = async (): Promise<void> => {
    const pending = await store.pending()
    const still = new Set(pending.map((record) => record.askId))
    for (const record of pending) follow(record)
    for (const askId of [...followed]) {
      if (still.has(askId)) continue
      const record = await store.get(askId)
      if (record === undefined || record.state === 'settled') {
        if (record !== undefined) settled(record)
        else followed.delete(askId)
      }
    }
    for (const entry of await ledger.unfinished()) {
      const event = eventOf(entry.eventId, entry.askId)
      if (event === undefined || closed) continue
      if (event.kind === 'settled') {
        // Owed, and sent once its ask settles (the feed says when, if it has not yet).
        const record = await store.get(entry.askId)
        if (record !== undefined && record.state === 'pending') continue
        if (record !== undefined) asks.set(record.askId, record)
      }
      start(event, now())
    }
  }

  let retry: unknown
  let reading: Promise<void> = Promise.resolve()
  const read = (): void => {
    reading = reading.then(() =>
      closed
        ? undefined
        : resync().catch(() => {
            // The store is out of reach: read it again later.
            if (closed) return
            const again = () => read()
            retry =
              clock === undefined
                ? setTimeout(again, RESYNC_RETRY_MS)
                : clock.setTimeout(again, RESYNC_RETRY_MS)
          }),
    )
  }

  const onChange = (change: StoreChange): void => {
    if (closed) return
    if (change.type === 'ask.admitted') follow(change.record)
    else if (change.type === 'ask.settled') settled(change.record)
    else if (change.type === 'resync') read()
  }
  const unwatch = store.watch(onChange)
  read()

  return {
    async close() {
      if (closed) return
      closed = true
      unwatch()
      if (retry !== undefined) {
        if (clock === undefined) clearTimeout(retry as ReturnType<typeof setTimeout>)
        else clock.clearTimeout(retry)
      }
      const held: string[] = []
      for (const [eventId, actor] of deliveries) {
        if (actor.getSnapshot().context.holding) held.push(eventId)
        actor.stop()
      }
      deliveries.clear()
      byAsk.clear()
      await reading.catch(() => undefined)
      await Promise.all(
        held.map((eventId) => ledger.release(eventId, holder).catch(() => undefined)),
      )
    },
  }
}
