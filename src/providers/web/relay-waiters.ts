import type { ApprovalIds, ReceiptReason } from './frames.js'
import type { RelayReceipt } from './relay-types.js'

/*
 * Responses from outside any connection (`Relay.respond`, an HTTP request):
 * each waits under an id of its own, which its ask's receipts name as they
 * name a connected client, until the one receipt that answers it.
 */

/** A receipt as a relayed ask tells it: accepted when `reason` is absent. */
interface Told {
  reason?: ReceiptReason | undefined
  message?: string | undefined
  details?: Readonly<Record<string, unknown>> | undefined
  counted?: ApprovalIds | undefined
}

/** Creates the table of responses waiting for their receipt. */
export function createReceiptWaiters() {
  const waiting = new Map<string, { entry: string; resolve(receipt: RelayReceipt): void }>()
  let count = 0

  return {
    /**
     * Registers a response to the relay's entry `entry` (one presentation of
     * an ask); returns the id its receipts will name.
     */
    wait(entry: string, resolve: (receipt: RelayReceipt) => void): string {
      const id = `request-${++count}`
      waiting.set(id, { entry, resolve })
      return id
    },

    /** Gives a waiting response its receipt; `false` when `id` names none (a connected client). */
    deliver(id: string, { reason, message, details, counted }: Told): boolean {
      const waiter = waiting.get(id)
      if (waiter === undefined) return false
      waiting.delete(id)
      waiter.resolve(
        reason === undefined
          ? counted === undefined
            ? { accepted: true }
            : { accepted: true, counted }
          : {
              accepted: false,
              reason,
              ...(message === undefined ? {} : { message }),
              ...(details === undefined ? {} : { details }),
            },
      )
      return true
    },

    /**
     * The entry `entry` ended: any response still waiting on it is told
     * `not-pending`. Its machine answers every response it took; this only
     * keeps one from waiting for ever. A newer entry of the same ask keeps its own.
     */
    release(entry: string): void {
      for (const [id, waiter] of waiting) {
        if (waiter.entry === entry) {
          waiting.delete(id)
          waiter.resolve({ accepted: false, reason: 'not-pending' })
        }
      }
    },
  }
}
