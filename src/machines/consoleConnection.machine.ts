import { assign, emit, setup } from 'xstate'
import { finalStateOutput } from './final-output.js'
import { clampDelay } from './time.js'

/** Why a console's session ended: the host closed it, or it stayed unreachable too long. */
export type ConsoleConnectionEnd = 'host-closed' | 'host-unreachable'

/** The console page's connection to its host, as data. */
export interface ConsoleConnectionContext {
  /** Reconnect attempts since the page was last online. */
  attempt: number
  /** First wait before a reconnect, in ms; it doubles with each failed attempt. */
  retryBaseMs: number
  /** The longest wait between two reconnect attempts, in ms. */
  retryMaxMs: number
  /** How long the host may stay unreachable before the session counts as ended, in ms. */
  giveUpMs: number
  /** The same, after the console said it is restarting (close code 1012), in ms. */
  restartGiveUpMs: number
  /** How long after a reconnect the host has to offer a shown ask again, in ms. */
  reofferGraceMs: number
  /** The asks the host offered that the page still shows, by `rpcId`. */
  shown: string[]
  /** Of those, the ones not offered again since the last reconnect. */
  unoffered: string[]
}

/** What starts a connection: its timing, each with a default. */
export interface ConsoleConnectionInput {
  /** @default 250 */
  retryBaseMs?: number
  /** @default 5000 */
  retryMaxMs?: number
  /** @default 30000 */
  giveUpMs?: number
  /**
   * How long a console that said it is restarting may take to come back (a
   * person stopping a console and starting it again takes longer than a
   * dropped socket takes to recover).
   * @default 600000 (10 minutes)
   */
  restartGiveUpMs?: number
  /**
   * How long after a reconnect the host has to offer again an ask the page
   * shows before it counts as ended meanwhile (a restarted console offers
   * its store's asks within a second or two, but none sooner than its seam
   * has read them).
   * @default 10000
   */
  reofferGraceMs?: number
}

/** What the page tells the connection: what its WebSocket did, what to send, and which asks it shows. */
export type ConsoleConnectionEvent =
  | { type: 'socket.opened' }
  /** The socket closed (or never opened); `code` is the WebSocket close code. */
  | { type: 'socket.closed'; code: number }
  /**
   * Send this frame to the host now; offline it is dropped (an answer the
   * host never confirmed goes again when it offers the ask anew, which
   * `consoleAskMachine` decides).
   */
  | { type: 'send'; frame: string }
  /** The host (re)sent `question/requested` for this ask: the page shows it. */
  | { type: 'ask.offered'; rpcId: string }
  /** The page no longer shows this ask (it was resolved, or the host confirmed the answer). */
  | { type: 'ask.left'; rpcId: string }

/** What the connection asks the page to do. */
export type ConsoleConnectionEmitted =
  /** Open a new WebSocket to the host. */
  | { type: 'socket.open' }
  /** Send this text on the open socket. */
  | { type: 'frame.send'; data: string }
  /**
   * These asks, shown before a reconnect, were not offered again within the
   * grace: they ended (or moved on) while the page was away.
   */
  | { type: 'asks.unoffered'; rpcIds: string[] }

/** How the connection ended: the page then stops reconnecting for good. */
export interface ConsoleConnectionOutput {
  ended: ConsoleConnectionEnd
}

/**
 * The close code a host sends when its session is over (1001, "going away"):
 * no reconnect will find it again.
 */
export const HOST_CLOSED_CODE = 1001

/**
 * The close code of a console that stops gracefully (`close()`, SIGINT):
 * 1012, "service restart" (RFC 6455 §7.4.1 as registered with IANA). It ended
 * no ask, and a console on the same port and token may come back: a tab keeps
 * what it shows and reconnects for longer than after a drop.
 */
export const CONSOLE_RESTARTING_CODE = 1012

const closeOf = ({ event }: { event: { code: number } }) => event

/**
 * Where a closed socket leads: the host's end (1001), a console's restart
 * (1012, to `restarted`; where none is given, a restart is one more drop),
 * or else a drop (to `dropped`).
 */
const socketClosed = (dropped: string, restarted?: string) => [
  {
    guard: { type: 'isHostClosing' as const, params: closeOf },
    target: '#consoleConnection.hostClosed',
  },
  ...(restarted === undefined
    ? []
    : [{ guard: { type: 'isRestarting' as const, params: closeOf }, target: restarted }]),
  { target: dropped },
]

/**
 * An outage: wait out the backoff, try a socket, and wait again if it
 * fails, within one budget (`after`) for the whole outage, however many
 * attempts fit in it.
 */
const outage = (
  after: { giveUp: 'hostUnreachable' } | { restartGiveUp: 'hostUnreachable' },
  restarted?: string,
) => ({
  after,
  initial: 'waiting' as const,
  states: {
    waiting: {
      after: { retryDelay: { target: 'trying' as const } },
    },
    trying: {
      entry: ['countAttempt' as const, 'openSocket' as const],
      on: {
        'socket.opened': { target: '#consoleConnection.online' },
        'socket.closed': /* @__PURE__ */ socketClosed('waiting', restarted),
      },
    },
  },
})

/**
 * The console page's connection to its host: `connecting`, `online`
 * (`replaying` after a reconnect until the host has offered again every ask
 * the page shows, or the grace is over and the rest are reported
 * `asks.unoffered`; `live` then),
 * `reconnecting` with a doubling backoff after a drop (`restarting`, with
 * a longer budget, after the console said it restarts), and final once the host closed
 * the session (`hostClosed`) or stayed unreachable for `giveUpMs`
 * (`hostUnreachable`), its output naming which — so a page whose
 * host is gone stops retrying (and stops filling the browser console with
 * failed connections). A frame is sent only while online: what an ask
 * must send again after a reconnect is that ask's own affair
 * (`consoleAskMachine`). The machine holds no socket: it emits `socket.open` and `frame.send`, and
 * the page does them.
 *
 * @example
 * ```ts
 * const actor = createActor(consoleConnectionMachine, { input: {} })
 * actor.on('socket.open', () => openSocket())
 * actor.on('frame.send', ({ data }) => socket.send(data))
 * actor.start()
 * ```
 */
export const consoleConnectionMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as ConsoleConnectionContext,
    events: {} as ConsoleConnectionEvent,
    input: {} as ConsoleConnectionInput,
    emitted: {} as ConsoleConnectionEmitted,
    output: {} as ConsoleConnectionOutput,
  },
  delays: {
    retryDelay: ({ context }) =>
      clampDelay(
        Math.min(context.retryBaseMs * 2 ** Math.min(context.attempt, 20), context.retryMaxMs),
      ),
    giveUp: ({ context }) => clampDelay(context.giveUpMs),
    restartGiveUp: ({ context }) => clampDelay(context.restartGiveUpMs),
    reofferGrace: ({ context }) => clampDelay(context.reofferGraceMs),
  },
  guards: {
    isHostClosing: (_, closed: { code: number }) => closed.code === HOST_CLOSED_CODE,
    isRestarting: (_, closed: { code: number }) => closed.code === CONSOLE_RESTARTING_CODE,
    isAllOffered: ({ context }) => context.unoffered.length === 0,
  },
  actions: {
    openSocket: emit({ type: 'socket.open' }),
    sendFrame: emit((_, sent: { frame: string }) => ({
      type: 'frame.send' as const,
      data: sent.frame,
    })),
    noteOffered: assign(({ context }, offered: { rpcId: string }) => ({
      shown: context.shown.includes(offered.rpcId)
        ? context.shown
        : [...context.shown, offered.rpcId],
      unoffered: context.unoffered.filter((rpcId) => rpcId !== offered.rpcId),
    })),
    noteLeft: assign(({ context }, left: { rpcId: string }) => ({
      shown: context.shown.filter((rpcId) => rpcId !== left.rpcId),
      unoffered: context.unoffered.filter((rpcId) => rpcId !== left.rpcId),
    })),
    awaitOffers: assign(({ context }) => ({ unoffered: context.shown })),
    reportUnoffered: emit(({ context }) => ({
      type: 'asks.unoffered' as const,
      rpcIds: context.unoffered,
    })),
    dropUnoffered: assign(({ context }) => ({
      shown: context.shown.filter((rpcId) => !context.unoffered.includes(rpcId)),
      unoffered: [],
    })),
    resetAttempts: assign({ attempt: 0 }),
    countAttempt: assign(({ context }) => ({ attempt: context.attempt + 1 })),
  },
}).createMachine({
  id: 'consoleConnection',
  context: ({ input }) => ({
    attempt: 0,
    retryBaseMs: input.retryBaseMs ?? 250,
    retryMaxMs: input.retryMaxMs ?? 5000,
    giveUpMs: input.giveUpMs ?? 30_000,
    restartGiveUpMs: input.restartGiveUpMs ?? 600_000,
    reofferGraceMs: input.reofferGraceMs ?? 10_000,
    shown: [],
    unoffered: [],
  }),
  initial: 'connecting',
  on: {
    'ask.left': { actions: { type: 'noteLeft', params: ({ event }) => event } },
  },
  states: {
    connecting: {
      entry: 'openSocket',
      on: {
        'socket.opened': { target: 'online' },
        'socket.closed': /* @__PURE__ */ socketClosed('reconnecting', 'restarting'),
      },
    },
    online: {
      // Every ask shown before this connection must be offered again on it.
      entry: ['resetAttempts', 'awaitOffers'],
      initial: 'replaying',
      states: {
        // The host replays the asks still pending; one it has not offered within the grace has ended.
        replaying: {
          always: { guard: 'isAllOffered', target: 'live' },
          after: {
            reofferGrace: { target: 'live', actions: ['reportUnoffered', 'dropUnoffered'] },
          },
        },
        live: {},
      },
      on: {
        send: { actions: { type: 'sendFrame', params: ({ event }) => event } },
        'ask.offered': { actions: { type: 'noteOffered', params: ({ event }) => event } },
        'socket.closed': /* @__PURE__ */ socketClosed('reconnecting', 'restarting'),
      },
    },
    reconnecting: /* @__PURE__ */ outage(
      { giveUp: 'hostUnreachable' },
      '#consoleConnection.restarting',
    ),
    // The console said it restarts: the same attempts, under a longer budget of their own.
    restarting: /* @__PURE__ */ outage({ restartGiveUp: 'hostUnreachable' }),
    // Why the session ended is the final state it ended in.
    hostClosed: {
      type: 'final',
      output: { ended: 'host-closed' } satisfies ConsoleConnectionOutput,
    },
    hostUnreachable: {
      type: 'final',
      output: { ended: 'host-unreachable' } satisfies ConsoleConnectionOutput,
    },
  },
  output: finalStateOutput<ConsoleConnectionOutput>,
})
