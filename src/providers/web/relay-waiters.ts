import type { ReceiptReason } from './frames.js'
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
}

/** Creates the table of responses waiting for their receipt. */
export function createReceiptWaiters() {
  const waiting = new Map<string, { rpcId: string; resolve(receipt: RelayReceipt): void }>()
  let count = 0

  return {
    /** Registers a response to ask `rpcId`; returns the id its receipts will name. */
    wait(rpcId: string, resolve: (receipt: RelayReceipt) => void): string {
      const id = `request-${++count}`
      waiting.set(id, { rpcId, resolve })
      return id
    },

    /** Gives a waiting response its receipt; `false` when `id` names none (a connected client). */
    deliver(id: string, { reason, message, details }: Told): boolean {
      const waiter = waiting.get(id)
      if (waiter === undefined) return false
      waiting.delete(id)
      waiter.resolve(
        reason === undefined
          ? { accepted: true }
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
     * The ask `rpcId` ended: any response still waiting on it is told
     * `not-pending`. Its machine answers every response it took; this only
     * keeps one from waiting for ever.
     */
    release(rpcId: string): void {
      for (const [id, waiter] of waiting) {
        if (waiter.rpcId === rpcId) {
          waiting.delete(id)
          waiter.resolve({ accepted: false, reason: 'not-pending' })
        }
      }
    },
  }
}
