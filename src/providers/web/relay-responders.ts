import type { ReceiptReason } from './frames.js'
import type { RelayReceipt } from './relay-types.js'

/*
 * Responses from outside any connection (`Relay.respond`, an HTTP request):
 * each waits under a responder id, which its ask's receipts name as they
 * name a connected client, until the one receipt that answers it.
 */

/** A receipt as a relayed ask tells it: accepted when `reason` is absent. */
interface Told {
  reason?: ReceiptReason | undefined
  message?: string | undefined
  details?: Readonly<Record<string, unknown>> | undefined
}

/** Creates the table of responders waiting for their receipt. */
export function createResponders() {
  const waiting = new Map<string, { rpcId: string; resolve(receipt: RelayReceipt): void }>()
  let count = 0

  return {
    /** Registers a responder to ask `rpcId`; returns the id its receipts will name. */
    wait(rpcId: string, resolve: (receipt: RelayReceipt) => void): string {
      const id = `responder-${++count}`
      waiting.set(id, { rpcId, resolve })
      return id
    },

    /** Gives a waiting responder its receipt; `false` when `id` names none (a connected client). */
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
     * The ask `rpcId` ended: any responder still waiting on it is told
     * `not-pending`. Its machine tells every responder it took; this only
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
