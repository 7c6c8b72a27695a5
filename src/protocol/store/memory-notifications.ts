import type {
  AskHistoryEvent,
  NotificationEnding,
  NotificationEntry,
  NotificationLedger,
} from './types.js'

type Entry = NotificationEntry & { ending?: NotificationEnding; finishedAt?: number }

/**
 * The memory store's notification ledger: a map by event id, checked against
 * `open` on each call, with the event ids of each ask so that the events of
 * an ask the store forgets go with it.
 */
export function memoryNotifications(open: () => void): NotificationLedger & {
  /** Forgets every event about `askId` (the store no longer holds it). */
  forget(askId: string): void
  /** The events about `askId` delivered so far, as its record shows them. */
  delivered(askId: string): AskHistoryEvent[]
} {
  const events = new Map<string, Entry>()
  const byAsk = new Map<string, Set<string>>()
  const put = (entry: Entry): void => {
    events.set(entry.eventId, entry)
    let ofAsk = byAsk.get(entry.askId)
    if (ofAsk === undefined) byAsk.set(entry.askId, (ofAsk = new Set()))
    ofAsk.add(entry.eventId)
  }
  return {
    forget(askId) {
      for (const eventId of byAsk.get(askId) ?? []) events.delete(eventId)
      byAsk.delete(askId)
    },

    delivered(askId) {
      return [...(byAsk.get(askId) ?? [])].flatMap((eventId) => {
        const entry = events.get(eventId)
        return entry?.ending === 'delivered' && entry.finishedAt !== undefined
          ? [{ at: entry.finishedAt, type: 'notified' as const, detail: { eventId } }]
          : []
      })
    },

    async claim(claim) {
      open()
      const held = events.get(claim.eventId)
      if (held === undefined && claim.recordedOnly === true) return { status: 'unrecorded' }
      if (held?.ending !== undefined) return { status: 'finished', ending: held.ending }
      if (
        held?.holder !== undefined &&
        held.holder !== claim.holder &&
        held.expiresAt !== undefined &&
        held.expiresAt > claim.now
      ) {
        return { status: 'held', holder: held.holder, expiresAt: held.expiresAt }
      }
      put({
        eventId: claim.eventId,
        askId: held?.askId ?? claim.askId,
        holder: claim.holder,
        expiresAt: claim.expiresAt,
      })
      return { status: 'claimed' }
    },

    async finish(finish) {
      open()
      const held = events.get(finish.eventId)
      if (held !== undefined && held.ending === undefined) {
        put({
          eventId: held.eventId,
          askId: held.askId,
          ending: finish.ending,
          finishedAt: finish.at,
        })
      }
      const owed = finish.owes
      if (owed !== undefined && !events.has(owed.eventId)) {
        put({ eventId: owed.eventId, askId: owed.askId })
      }
    },

    async release(eventId, holder) {
      open()
      const held = events.get(eventId)
      if (held !== undefined && held.ending === undefined && held.holder === holder) {
        put({ eventId, askId: held.askId })
      }
    },

    async unfinished() {
      open()
      return [...events.values()]
        .filter((entry) => entry.ending === undefined)
        .sort((a, b) => (a.eventId < b.eventId ? -1 : 1))
        .map(({ eventId, askId, holder, expiresAt }) => ({
          eventId,
          askId,
          ...(holder === undefined ? {} : { holder }),
          ...(expiresAt === undefined ? {} : { expiresAt }),
        }))
    },
  }
}
