import type { ProviderCall } from './provider-call.js'
import type { ProviderSettlement, UserQuestionError } from '../vocabulary/index.js'

/**
 * The provider calls of the asks a seam presents, beside their machines: the
 * call each ask shows now, and the earlier calls of an ask still presented
 * (answers refused or counted while it stayed pending, DESIGN §12).
 */
export function createLiveCalls() {
  const current = new Map<string, ProviderCall>()
  const earlier = new Map<string, ProviderCall[]>()
  return {
    open(askId: string, call: ProviderCall): void {
      current.set(askId, call)
    },

    /**
     * Tells the ask's current call what became of its answer. When the ask
     * goes on (`goesOn`), the call is kept among the earlier ones, whose
     * signals abort if the ask ends other than with this provider's answer;
     * otherwise every call of the ask is done.
     */
    tell(askId: string, settlement: ProviderSettlement, goesOn: boolean): void {
      const call = current.get(askId)
      current.delete(askId)
      if (goesOn && call !== undefined) earlier.set(askId, [...(earlier.get(askId) ?? []), call])
      else earlier.delete(askId)
      call?.tell(settlement)
    },

    /** Aborts every call of the ask with `reason` (even one that answered), and tells the current one `refused`. */
    end(askId: string, reason: UserQuestionError): void {
      for (const told of earlier.get(askId) ?? []) {
        if (!told.controller.signal.aborted) told.controller.abort(reason)
      }
      earlier.delete(askId)
      const call = current.get(askId)
      if (call === undefined) return
      if (!call.controller.signal.aborted) call.controller.abort(reason)
      current.delete(askId)
      call.tell({ status: 'refused', error: reason })
    },

    /** Forgets every call, telling none (a killed process). */
    clear(): void {
      current.clear()
      earlier.clear()
    },
  }
}
