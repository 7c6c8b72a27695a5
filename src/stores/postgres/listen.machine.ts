import type { Client } from 'pg'
import { assign, fromPromise, setup, stateIn } from 'xstate'
import { clampDelay } from '../../machines/index.js'

/** The first reconnect waits this long, then twice as long each time, up to {@link MAX_RETRY_MS}. */
export const FIRST_RETRY_MS = 50
/** The longest wait between two reconnects. */
export const MAX_RETRY_MS = 5_000

/** What the LISTEN connection starts from. */
export interface ListenInput {
  /** How long the liveness check waits for the connection to answer. */
  aliveTimeoutMs: number
}

/** The LISTEN connection as data (the live client is its owner's, never here). */
export interface ListenContext {
  aliveTimeoutMs: number
  /** The wait before the next reconnect: doubled by each, back to the first after a success. */
  retryMs: number
  /** Whether a connection came up since the last start: the next one is a reconnect. */
  everConnected: boolean
}

/** What the LISTEN connection hears from its owner. */
export type ListenEvent =
  /** Open the connection, and again after every loss, until `stop`. */
  | { type: 'start' }
  /** Close the connection and cancel a pending reconnect. */
  | { type: 'stop' }
  /** Check the connection is alive: ask it `SELECT 1`, and drop it if it does not answer in time. */
  | { type: 'alive.check' }
  /** The live connection said 'error' or 'end'. */
  | { type: 'connection.lost'; error: unknown }

/** Said of a connection that did not answer the liveness check in time. */
export const SILENT = 'the LISTEN connection did not answer'

/**
 * The Postgres store's dedicated LISTEN connection and its reconnection:
 *
 * - `stopped`: no connection; `start` opens one.
 * - `opening`: the `open` actor reads the schema (it names the channel),
 *   opens a client, connects and LISTENs. In `wanted`, success goes to
 *   `listening` and failure to `retrying`. A `stop` meanwhile leaves the
 *   attempt running in `abandoned`: a client it opens then is ended and
 *   never used (`discard`), a failure is not reported and not retried, and a
 *   `start` before it settles takes it up again (one connection, not two).
 * - `listening`: the connection is kept (`keep`) until it is lost, it fails
 *   the liveness check (`checking`: `SELECT 1`, within `aliveTimeout`), or
 *   `stop`; leaving, it is ended (`release`).
 * - `retrying`: waits out `backoff` ({@link FIRST_RETRY_MS}, doubling to
 *   {@link MAX_RETRY_MS}, from the first again after a success), then opens
 *   again; `stop` cancels the wait.
 *
 * `start` while running does nothing. The store provides the actors (`open`
 * resolves with the connected client, `ping` asks it `SELECT 1`) and the
 * actions that touch the client or tell the feed.
 */
export const listenMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as ListenContext,
    events: {} as ListenEvent,
    input: {} as ListenInput,
  },
  actors: {
    open: fromPromise<Client>(() => Promise.reject(new Error('no client to open'))),
    ping: fromPromise<void>(async () => undefined),
  },
  guards: {
    isWanted: stateIn({ opening: 'wanted' }),
  },
  delays: {
    backoff: ({ context }) => clampDelay(context.retryMs),
    aliveTimeout: ({ context }) => clampDelay(context.aliveTimeoutMs),
  },
  actions: {
    /** The connection that came up is the one listened on. */
    keep: (_, _client: Client) => undefined,
    /** A client opened for an attempt abandoned by `stop` is ended, never used. */
    discard: (_, _client: Client) => undefined,
    /** The kept connection is ended. */
    release: () => undefined,
    reportConnected: (_, _params: { reconnect: boolean }) => undefined,
    reportLost: (_, _params: { error: unknown }) => undefined,
    reportFailed: (_, _params: { error: unknown }) => undefined,
    /** The LISTEN took effect. */
    announceListening: () => undefined,
    markConnected: assign({ everConnected: true, retryMs: FIRST_RETRY_MS }),
    // The next start's first connection is no reconnect: nobody watched in between.
    forget: assign({ everConnected: false }),
    backOff: assign({
      retryMs: ({ context }) => Math.min(context.retryMs * 2, MAX_RETRY_MS),
    }),
  },
}).createMachine({
  id: 'listen',
  context: ({ input }) => ({
    aliveTimeoutMs: input.aliveTimeoutMs,
    retryMs: FIRST_RETRY_MS,
    everConnected: false,
  }),
  initial: 'stopped',
  states: {
    stopped: {
      on: { start: 'opening' },
    },
    opening: {
      invoke: {
        id: 'open',
        src: 'open',
        onDone: [
          {
            guard: 'isWanted',
            target: 'listening',
            actions: [
              { type: 'keep', params: ({ event }) => event.output },
              {
                type: 'reportConnected',
                params: ({ context }) => ({ reconnect: context.everConnected }),
              },
              'markConnected',
              'announceListening',
            ],
          },
          { target: 'stopped', actions: { type: 'discard', params: ({ event }) => event.output } },
        ],
        onError: [
          {
            guard: 'isWanted',
            target: 'retrying',
            actions: { type: 'reportFailed', params: ({ event }) => ({ error: event.error }) },
          },
          { target: 'stopped' },
        ],
      },
      initial: 'wanted',
      states: {
        wanted: { on: { stop: { target: 'abandoned', actions: 'forget' } } },
        abandoned: { on: { start: 'wanted' } },
      },
    },
    listening: {
      exit: 'release',
      on: {
        'connection.lost': {
          target: 'retrying',
          actions: { type: 'reportLost', params: ({ event }) => ({ error: event.error }) },
        },
        stop: { target: 'stopped', actions: 'forget' },
      },
      initial: 'idle',
      states: {
        idle: { on: { 'alive.check': 'checking' } },
        checking: {
          invoke: {
            id: 'ping',
            src: 'ping',
            onDone: 'idle',
            onError: {
              target: '#listen.retrying',
              actions: { type: 'reportLost', params: ({ event }) => ({ error: event.error }) },
            },
          },
          after: {
            aliveTimeout: {
              target: '#listen.retrying',
              actions: { type: 'reportLost', params: () => ({ error: new Error(SILENT) }) },
            },
          },
        },
      },
    },
    retrying: {
      // Doubled as the wait is left, whether it ran out or was stopped: the
      // next wait is twice this one until a connection comes up.
      exit: 'backOff',
      after: { backoff: 'opening' },
      on: { stop: { target: 'stopped', actions: 'forget' } },
    },
  },
})
