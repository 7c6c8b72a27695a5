/**
 * The page's connection to its host: a `consoleConnectionMachine` actor and
 * the WebSocket it asks for. No DOM here, so tests run it in Node against a
 * fake socket; the page passes the browser's `WebSocket`.
 */
import { createActor } from 'xstate'
import { consoleConnectionMachine } from '../../../machines/index.js'
import type {
  ConsoleConnectionEnd,
  ConsoleConnectionEvent,
  ConsoleConnectionInput,
} from '../../../machines/index.js'

/**
 * What the page shows of the connection: `restarting` after the console said
 * it is stopping to come back (close code 1012), `reconnecting` after the
 * socket dropped without a word.
 */
export type ConnectionState = 'connecting' | 'online' | 'reconnecting' | 'restarting' | 'ended'

/** The part of a WebSocket the connection uses. */
export interface SocketLike {
  send(data: string): void
  close(): void
  addEventListener(type: 'open', listener: () => void): void
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void
  addEventListener(type: 'close', listener: (event: { code: number }) => void): void
}

/** How to reach the host, and where to report what comes back. */
export interface ConnectionOptions {
  url: string
  /** Opens a socket: `(url) => new WebSocket(url)` in the page, a fake in tests. */
  openSocket(url: string): SocketLike
  /** Every JSON object frame the host sends. */
  onFrame(frame: Record<string, unknown>): void
  /** Called with each new state, and once at start. */
  onState(state: ConnectionState): void
  /** Called once the connection ended for good (right after `onState('ended')`), with why. */
  onEnded?(reason: ConsoleConnectionEnd): void
  /** Asks shown before a reconnect that the host did not offer again in time: they ended meanwhile. */
  onUnoffered?(rpcIds: string[]): void
  /** Backoff, give-up and re-offer timing; the machine's defaults otherwise. */
  timing?: ConsoleConnectionInput
}

/** The running connection. */
export interface Connection {
  readonly state: ConnectionState
  /** Sends a frame now; offline it is dropped (an ask sends its answer again when the host offers it anew). */
  send(frame: string): void
  /** The host sent `question/requested` for this ask: the page shows it. */
  offered(rpcId: string): void
  /** The page no longer shows this ask. */
  left(rpcId: string): void
  /** Stops the machine and closes the socket (tests; the page lives as long as the tab). */
  stop(): void
}

/** Starts connecting at once. */
export function connectToHost(options: ConnectionOptions): Connection {
  let socket: SocketLike | undefined
  let state: ConnectionState | undefined
  const report = (next: ConnectionState) => {
    if (next === state) return
    state = next
    options.onState(next)
  }

  const actor = createActor(consoleConnectionMachine, { input: options.timing ?? {} })
  actor.on('socket.open', () => {
    const opened = options.openSocket(options.url)
    socket = opened
    // A socket replaced by a newer one (or by the end) no longer speaks for the connection.
    const speaks = () => socket === opened && actor.getSnapshot().status === 'active'
    opened.addEventListener('open', () => {
      if (speaks()) actor.send({ type: 'socket.opened' })
    })
    opened.addEventListener('message', (event) => {
      if (!speaks()) return
      let frame: unknown
      try {
        frame = JSON.parse(String(event.data))
      } catch {
        return
      }
      if (typeof frame === 'object' && frame !== null && !Array.isArray(frame)) {
        options.onFrame(frame as Record<string, unknown>)
      }
    })
    opened.addEventListener('close', (event) => {
      if (!speaks()) return
      socket = undefined
      actor.send({ type: 'socket.closed', code: event.code })
    })
  })
  actor.on('frame.send', ({ data }) => socket?.send(data))
  actor.on('asks.unoffered', ({ rpcIds }) => options.onUnoffered?.(rpcIds))
  actor.subscribe((snapshot) => {
    if (snapshot.status === 'done') {
      report('ended')
      options.onEnded?.(snapshot.output.ended)
    } else if (snapshot.matches('online')) report('online')
    else if (snapshot.matches('restarting')) report('restarting')
    else report(snapshot.matches('reconnecting') ? 'reconnecting' : 'connecting')
  })
  actor.start()
  const tell = (event: ConsoleConnectionEvent) => {
    if (actor.getSnapshot().status === 'active') actor.send(event)
  }

  return {
    get state() {
      return state ?? 'connecting'
    },
    send: (frame) => tell({ type: 'send', frame }),
    offered: (rpcId) => tell({ type: 'ask.offered', rpcId }),
    left: (rpcId) => tell({ type: 'ask.left', rpcId }),
    stop() {
      actor.stop()
      const open = socket
      socket = undefined
      open?.close()
    },
  }
}
