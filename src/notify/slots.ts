import type { Actor } from 'xstate'
import type { webhookDeliveryMachine } from '../machines/index.js'

type DeliveryActor = Actor<typeof webhookDeliveryMachine>

/**
 * The notifier's sends in flight: at most `max` deliveries hold a slot at
 * once; the others wait their turn, first come first served. A delivery
 * asks with `slot.wanted` and gives its slot back with `slot.freed` (or by
 * ending); each freed slot goes to the longest-waiting delivery still in
 * `waitingForSlot`.
 */
export function createSendSlots(max: number, now: () => number) {
  const holders = new Set<DeliveryActor>()
  const waiting: DeliveryActor[] = []

  const grant = (): void => {
    while (holders.size < max) {
      const actor = waiting.shift()
      if (actor === undefined) return
      // One that left the queue another way (its ask settled, it was stopped) is passed over.
      const snapshot = actor.getSnapshot()
      if (snapshot.status !== 'active' || !snapshot.matches('waitingForSlot')) continue
      holders.add(actor)
      actor.send({ type: 'slot.granted', at: now() })
    }
  }

  return {
    /** `actor` waits for a slot, and is granted one at once if one is free. */
    want(actor: DeliveryActor): void {
      waiting.push(actor)
      grant()
    },
    /** `actor` gives back its slot, if it holds one (idempotent). */
    free(actor: DeliveryActor): void {
      if (holders.delete(actor)) grant()
    },
    /** How many slots are held now. */
    get inFlight(): number {
      return holders.size
    },
    /** Forgets every holder and every waiting delivery (the notifier is closing). */
    clear(): void {
      holders.clear()
      waiting.length = 0
    },
  }
}

/** A notifier's pool of send slots. */
export type SendSlots = ReturnType<typeof createSendSlots>
