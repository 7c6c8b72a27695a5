import { createActor } from 'xstate'
import type { Actor } from 'xstate'
import type { WebhookDeliveryOutput, webhookDeliveryMachine } from '../machines/index.js'
import type { AskRecord } from '../protocol/internal.js'
import { deliveryMachineFor } from './actors.js'
import type { DeliveryWorld } from './actors.js'
import { eventIdOf } from './payload.js'
import type { NotifierEvent } from './payload.js'
import { createSendSlots } from './slots.js'

type DeliveryActor = Actor<typeof webhookDeliveryMachine>

/**
 * A notifier's running deliveries, one actor per event, and the schedule of
 * the events each pending ask is owed: `ask.pending`, its reminders one
 * after another, its escalation, and its settlement once owed. The actors
 * share the notifier's send slots (`maxInFlight`).
 */
export function createDeliveries(world: DeliveryWorld) {
  const { settings, now, asks } = world
  const { clock } = settings
  const machine = deliveryMachineFor(world)
  const slots = createSendSlots(settings.maxInFlight, now)
  /** The running delivery of each event, by event id. */
  const deliveries = new Map<string, DeliveryActor>()
  /** The event ids of each ask's running deliveries. */
  const byAsk = new Map<string, Set<string>>()
  /** Pending asks whose events are scheduled. */
  const followed = new Set<string>()
  let stopped = false

  const firstDue = (record: AskRecord): number => record.startedAt + settings.notifyAfterMs

  /** Starts the delivery of `event`, due at `dueAt`, unless one runs already. */
  const start = (event: NotifierEvent, dueAt: number): void => {
    const eventId = eventIdOf(event)
    if (stopped || deliveries.has(eventId)) return
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
    actor.on('slot.wanted', () => slots.want(actor))
    actor.on('slot.freed', () => slots.free(actor))
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
    slots.free(actor)
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

  return {
    start,

    /** Whether the ask's events are scheduled (it was pending when last seen). */
    follows: (askId: string): boolean => followed.has(askId),

    /** Every ask whose events are scheduled. */
    followedAsks: (): string[] => [...followed],

    /** The store has no such ask any more: nothing more is scheduled for it. */
    unfollow: (askId: string): void => void followed.delete(askId),

    /** Keeps `record` as the latest of its ask, for the payloads of its events. */
    remember: (record: AskRecord): void => void asks.set(record.askId, record),

    /** Schedules a pending ask's events (once). */
    follow(record: AskRecord): void {
      if (stopped || record.state !== 'pending' || followed.has(record.askId)) return
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
        start(
          { kind: 'escalated', askId: record.askId },
          record.startedAt + settings.escalateAfterMs,
        )
      }
    },

    /** An ask settled: its reminders and escalation stop, and its settlement goes out if it is owed. */
    settled(record: AskRecord): void {
      if (stopped) return
      followed.delete(record.askId)
      asks.set(record.askId, record)
      for (const eventId of byAsk.get(record.askId) ?? []) {
        deliveries.get(eventId)?.send({ type: 'ask.settled' })
      }
      // Claimed only where the ledger records it as owed: where `ask.pending` was delivered.
      start({ kind: 'settled', askId: record.askId }, now())
    },

    /** Stops every delivery; answers the ids of the events whose claims they held. */
    stop(): string[] {
      stopped = true
      // Emptied first: a slot given back as its holder stops goes to no one.
      slots.clear()
      const held: string[] = []
      for (const [eventId, actor] of deliveries) {
        if (actor.getSnapshot().context.holding) held.push(eventId)
        actor.stop()
      }
      deliveries.clear()
      byAsk.clear()
      return held
    },
  }
}

/** A notifier's deliveries and the schedule of its asks' events. */
export type Deliveries = ReturnType<typeof createDeliveries>
