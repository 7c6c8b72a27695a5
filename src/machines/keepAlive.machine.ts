import { assign, emit, setup } from 'xstate'
import { clampDelay } from './time.js'

/**
 * How often a long wait tells its caller it is still alive when nobody says
 * otherwise: well under the 60 s a typical MCP client's request timeout
 * allows, and rare enough to cost nothing.
 */
export const KEEP_ALIVE_MS = 10_000

/** What a keepalive starts from. */
export interface KeepAliveInput {
  /** The time between two signs of life, in ms; 0 (or less) sends none. */
  intervalMs: number
  /** The token the caller gave to hear progress by; without one it hears none. */
  progressToken?: string | number | undefined
}

/** A keepalive as data: how often it ticks, and how many ticks it sent. */
export interface KeepAliveContext {
  /** The time between two ticks, in ms (clamped when armed); 0 or less: none. */
  intervalMs: number
  /** The caller's progress token; without one nothing ticks. */
  progressToken: string | number | undefined
  /** Ticks sent so far: each tick's progress is one more than the last. */
  progress: number
}

/** What a keepalive hears: the wait it keeps alive is over (answered, failed, cancelled, aborted). */
export type KeepAliveEvent = { type: 'wait.ended' }

/** What a keepalive asks its owner to do: send one sign of life. */
export type KeepAliveEmitted = {
  type: 'keepalive.tick'
  /** 1 on the first tick, then one more on each. */
  progress: number
  /** How long the wait has lasted by this tick, in ms. */
  elapsedMs: number
}

/**
 * The signs of life of one long wait (DESIGN §13, "Long waits over MCP"):
 * idle when there is nobody to tell (no progress token, or no interval),
 * ticking every `keepAliveInterval` while the wait lasts, each tick emitting
 * `keepalive.tick` with a progress one higher than the last, and stopped for
 * good at `wait.ended`, after which nothing more is emitted.
 */
export const keepAliveMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as KeepAliveContext,
    events: {} as KeepAliveEvent,
    input: {} as KeepAliveInput,
    emitted: {} as KeepAliveEmitted,
  },
  guards: {
    hasListener: ({ context }) => context.progressToken !== undefined && context.intervalMs > 0,
  },
  delays: {
    keepAliveInterval: ({ context }) => clampDelay(context.intervalMs),
  },
  actions: {
    countTick: assign({ progress: ({ context }) => context.progress + 1 }),
    announceTick: emit(({ context }) => ({
      type: 'keepalive.tick' as const,
      progress: context.progress,
      elapsedMs: context.progress * clampDelay(context.intervalMs),
    })),
  },
}).createMachine({
  id: 'keepAlive',
  context: ({ input }) => ({
    intervalMs: input.intervalMs,
    progressToken: input.progressToken,
    progress: 0,
  }),
  initial: 'idle',
  states: {
    idle: {
      always: { guard: 'hasListener', target: 'ticking' },
      on: { 'wait.ended': 'stopped' },
    },
    ticking: {
      after: {
        keepAliveInterval: {
          target: 'ticking',
          reenter: true,
          actions: ['countTick', 'announceTick'],
        },
      },
      on: { 'wait.ended': 'stopped' },
    },
    stopped: { type: 'final' },
  },
})
