import type { NotificationEnding, NotificationEntry, NotificationLedger } from './types.js'

/** The memory store's notification ledger: a map by event id, checked against `open` on each call. */
export function memoryNotifications(open: () => void): NotificationLedger {
  const events = new Map<string, NotificationEntry & { ending?: NotificationEnding }>()
  return {
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
      events.set(claim.eventId, {
        eventId: claim.eventId,
        askId: claim.askId,
        holder: claim.holder,
        expiresAt: claim.expiresAt,
      })
      return { status: 'claimed' }
    },

    async finish(finish) {
      open()
      const held = events.get(finish.eventId)
      if (held !== undefined && held.ending === undefined) {
        events.set(finish.eventId, {
          eventId: held.eventId,
          askId: held.askId,
          ending: finish.ending,
        })
      }
      const owed = finish.owes
      if (owed !== undefined && !events.has(owed.eventId)) {
        events.set(owed.eventId, { eventId: owed.eventId, askId: owed.askId })
      }
    },

    async release(eventId, holder) {
      open()
      const held = events.get(eventId)
      if (held !== undefined && held.ending === undefined && held.holder === holder) {
        events.set(eventId, { eventId, askId: held.askId })
      }
    },

    async unfinished() {
      open()
      return [...events.values()]
        .filter((entry) => entry.ending === undefined)
        .sort((a, b) => (a.eventId < b.eventId ? -1 : 1))
        .map((entry) => ({ ...entry }))
    },
  }
}
