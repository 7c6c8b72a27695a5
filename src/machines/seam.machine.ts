import { assign, emit, setup } from 'xstate'

/** The provider slot's memory: which registration holds it. The provider itself lives beside the actor. */
export interface SeamContext {
  /** The latest registration to hold the slot; a disposer frees the slot only while it is its own. */
  registration: number | undefined
}

export type SeamEvent =
  | { type: 'provider.registered'; registration: number }
  | { type: 'provider.disposed'; registration: number }
  | { type: 'seam.closed' }

/** What the slot tells the seam, which forwards each to its asks. */
export type SeamEmitted =
  | { type: 'provider.available'; registration: number }
  | { type: 'provider.disposed'; registration: number }
  | { type: 'seam.closed' }

/**
 * The provider slot: one active provider at most, then closed. A registration
 * while one is active, or after close, is not accepted (the adapter reads
 * that with `snapshot.can` and throws the matching code). A disposer frees
 * the slot only while its own registration holds it, so a stale one is
 * harmless. The seam reads "closed" from this machine, and keeps the
 * provider of the registration beside it.
 */
export const seamMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as SeamContext,
    events: {} as SeamEvent,
    emitted: {} as SeamEmitted,
  },
  guards: {
    isCurrentRegistration: ({ context }, registration: number) =>
      registration === context.registration,
  },
  actions: {
    occupySlot: assign((_, registration: number) => ({ registration })),
    vacateSlot: assign({ registration: undefined }),
    announceProvider: emit(({ context }) => ({
      type: 'provider.available' as const,
      registration: context.registration as number,
    })),
    announceDisposal: emit((_, registration: number) => ({
      type: 'provider.disposed' as const,
      registration,
    })),
    announceClose: emit({ type: 'seam.closed' as const }),
  },
}).createMachine({
  id: 'seam',
  context: { registration: undefined },
  initial: 'vacant',
  states: {
    vacant: {
      on: {
        'provider.registered': {
          target: 'active',
          actions: [
            { type: 'occupySlot', params: ({ event }) => event.registration },
            'announceProvider',
          ],
        },
        'seam.closed': { target: 'closed', actions: 'announceClose' },
      },
    },
    active: {
      on: {
        'provider.disposed': {
          guard: { type: 'isCurrentRegistration', params: ({ event }) => event.registration },
          target: 'vacant',
          actions: [
            { type: 'announceDisposal', params: ({ event }) => event.registration },
            'vacateSlot',
          ],
        },
        'seam.closed': { target: 'closed', actions: ['vacateSlot', 'announceClose'] },
      },
    },
    closed: {},
  },
})
