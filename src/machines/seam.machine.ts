import { assign, emit, setup } from 'xstate'
import type { UserQuestionProvider } from '../vocabulary/index.js'

export interface SeamContext {
  provider: UserQuestionProvider | undefined
  /** The latest registration to hold the slot; a disposer frees the slot only while it is its own. */
  registration: number | undefined
}

export type SeamEvent =
  | { type: 'provider.registered'; provider: UserQuestionProvider; registration: number }
  | { type: 'provider.disposed'; registration: number }
  | { type: 'seam.closed' }

/** What the slot tells the pending asks; the seam adapter forwards each to every ask. */
export type SeamEmitted =
  | { type: 'provider.available'; provider: UserQuestionProvider }
  | { type: 'provider.disposed' }
  | { type: 'seam.closed' }

/**
 * The provider slot: one active provider at most. A registration while one is
 * active, or after close, is not accepted (the adapter reads that with
 * `snapshot.can` and throws the matching code). A disposer frees the slot only
 * while its own registration holds it, so a stale one is harmless.
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
    occupySlot: assign((_, slot: { provider: UserQuestionProvider; registration: number }) => slot),
    vacateSlot: assign({ provider: undefined }),
    announceProvider: emit(({ context }) => ({
      type: 'provider.available' as const,
      provider: context.provider as UserQuestionProvider,
    })),
    announceDisposal: emit({ type: 'provider.disposed' as const }),
    announceClose: emit({ type: 'seam.closed' as const }),
  },
}).createMachine({
  id: 'seam',
  context: { provider: undefined, registration: undefined },
  initial: 'vacant',
  states: {
    vacant: {
      on: {
        'provider.registered': {
          target: 'active',
          actions: [
            {
              type: 'occupySlot',
              params: ({ event }) => ({
                provider: event.provider,
                registration: event.registration,
              }),
            },
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
          actions: ['vacateSlot', 'announceDisposal'],
        },
        'seam.closed': { target: 'closed', actions: ['vacateSlot', 'announceClose'] },
      },
    },
    closed: {},
  },
})
