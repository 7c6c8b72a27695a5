import { assign, emit, setup } from 'xstate'
import { clampDelay } from './time.js'

/** What a client connection starts from: its id and its rate limit. */
export interface RelayClientInput {
  clientId: string
  /** Frames accepted in one window before the connection is throttled. */
  maxFrames: number
  /** The rate window, and how long a throttled connection drops frames, in milliseconds. */
  windowMs: number
}

/** One connection's memory. */
export interface RelayClientContext {
  clientId: string
  maxFrames: number
  windowMs: number
  /** Frames accepted in the current window. */
  framesInWindow: number
  /** Frames dropped while throttled, over the connection's life. */
  dropped: number
  /** Why the connection closed, once it has. */
  closeReason: 'disconnected' | 'congested' | 'relay-disposed' | undefined
}

/** What reaches a client connection. */
export type RelayClientEvent =
  /** The transport delivered one frame's text. */
  | { type: 'frame.received'; data: string }
  /** The peer went away. */
  | { type: 'client.disconnected' }
  /** The peer does not read: its unsent output passed the relay's bound. */
  | { type: 'client.congested' }
  /** The relay is being disposed. */
  | { type: 'relay.disposed' }

/** What a client connection tells the relay. */
export type RelayClientEmitted =
  /** A frame within the rate limit: the relay parses and handles it. */
  | { type: 'frame.accepted'; data: string }
  /** The connection just ran over its rate limit; frames are dropped for a window. */
  | { type: 'client.throttled'; maxFrames: number; windowMs: number }

/**
 * One client connection of the relay: open (quiet, counting frames in a rate
 * window, or throttled) until the peer leaves, stops reading, or the relay is
 * disposed. A burst from one client is cut at `maxFrames` per window and
 * answered once with a throttle notice, so it cannot starve other clients or
 * make the relay write an unbounded stream of receipts back to it. Timers run
 * only while a window is open.
 */
export const relayClientMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as RelayClientContext,
    events: {} as RelayClientEvent,
    input: {} as RelayClientInput,
    emitted: {} as RelayClientEmitted,
  },
  guards: {
    isOverRateLimit: ({ context }) => context.framesInWindow >= context.maxFrames,
  },
  delays: {
    rateWindow: ({ context }) => clampDelay(context.windowMs),
    throttlePause: ({ context }) => clampDelay(context.windowMs),
  },
  actions: {
    countFrame: assign({ framesInWindow: ({ context }) => context.framesInWindow + 1 }),
    resetFrameCount: assign({ framesInWindow: 0 }),
    dropFrame: assign({ dropped: ({ context }) => context.dropped + 1 }),
    acceptFrame: emit((_, frame: { data: string }) => ({
      type: 'frame.accepted' as const,
      data: frame.data,
    })),
    announceThrottle: emit(({ context }) => ({
      type: 'client.throttled' as const,
      maxFrames: context.maxFrames,
      windowMs: context.windowMs,
    })),
    recordDisconnect: assign({ closeReason: 'disconnected' as const }),
    recordCongestion: assign({ closeReason: 'congested' as const }),
    recordDisposal: assign({ closeReason: 'relay-disposed' as const }),
  },
}).createMachine({
  id: 'relayClient',
  context: ({ input }) => ({
    clientId: input.clientId,
    maxFrames: input.maxFrames,
    windowMs: input.windowMs,
    framesInWindow: 0,
    dropped: 0,
    closeReason: undefined,
  }),
  initial: 'open',
  states: {
    open: {
      initial: 'quiet',
      on: {
        'client.disconnected': { target: 'closed', actions: 'recordDisconnect' },
        'client.congested': { target: 'closed', actions: 'recordCongestion' },
        'relay.disposed': { target: 'closed', actions: 'recordDisposal' },
      },
      states: {
        quiet: {
          on: {
            'frame.received': {
              target: 'counting',
              actions: ['countFrame', { type: 'acceptFrame', params: ({ event }) => event }],
            },
          },
        },
        counting: {
          after: { rateWindow: { target: 'quiet', actions: 'resetFrameCount' } },
          on: {
            'frame.received': [
              { guard: 'isOverRateLimit', target: 'throttled', actions: 'dropFrame' },
              { actions: ['countFrame', { type: 'acceptFrame', params: ({ event }) => event }] },
            ],
          },
        },
        throttled: {
          entry: 'announceThrottle',
          after: { throttlePause: { target: 'quiet', actions: 'resetFrameCount' } },
          on: { 'frame.received': { actions: 'dropFrame' } },
        },
      },
    },
    closed: { type: 'final' },
  },
})
