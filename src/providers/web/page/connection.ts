/**
 * The page's connection to its host: a `consoleConnectionMachine` actor and
 * the WebSocket it asks for. No DOM here, so tests run it in Node against a
 * fake socket; the page passes the browser's `WebSocket`.
 */
import { createActor } from 'xstate'
import { consoleConnectionMachine } from '../../../machines/index.js'
import type { ConsoleConnectionInput } from '../../../machines/index.js'

/** What the page shows of the connection. */
export type ConnectionState = 'connecting' | 'online' | 'reconnecting' | 'ended'

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
  /** Backoff and give-up timing; the machine's defaults otherwise. */
  timing?: ConsoleConnectionInput
}

/** The running connection. */
export interface Connection {
  readonly state: ConnectionState
  /** Sends a finished ask's `question/respond` now, or once the host replays the ask. */
  sendAnswer(rpcId: string, frame: string): void
  /** The host sent `question/requested` for this ask: an unconfirmed answer to it goes again. */
  offered(rpcId: string): void
  /** A receipt or `question/resolved` came for this ask. */
  settled(rpcId: string): void
  /** Stops the machine and closes the socket (tests; the page lives as long as the tab). */
  stop(): void
}

/** Starts connecting at once. */
export function connectToHost(options: ConnectionOptions): Connection {
  const actor = createActor(consoleConnectionMachine, { input: options.timing ?? {} })
  let socket: SocketLike | undefined
  let state: ConnectionState | undefined

  actor.on('socket.open', () => {
    const opened = options.openSocket(options.url)
    socket = opened
    // A socket replaced by a newer one (or by the end) no longer speaks for the connection.
    const current = () => socket === opened && actor.getSnapshot().status === 'active'
    opened.addEventListener('open', () => {
      if (current()) actor.send({ type: 'socket.opened' })
    })
    opened.addEventListener('message', (event) => {
      if (!current()) return
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
      if (!current()) return
      socket = undefined
      actor.send({ type: 'socket.closed', code: event.code })
    })
  })
  actor.on('frame.send', ({ data }) => socket?.send(data))
  actor.subscribe((snapshot) => {
    const next: ConnectionState =
      snapshot.status === 'done'
        ? 'ended'
        : snapshot.matches('online')
          ? 'online'
          : snapshot.matches('reconnecting')
            ? 'reconnecting'
            : 'connecting'
    if (next === state) return
    state = next
    options.onState(next)
  })
  actor.start()

  return {
    get state() {
      return state ?? 'connecting'
    },
    sendAnswer: (rpcId, frame) => actor.send({ type: 'answer.sent', rpcId, frame }),
    offered: (rpcId) => actor.send({ type: 'ask.offered', rpcId }),
    settled: (rpcId) => actor.send({ type: 'answer.settled', rpcId }),
    stop() {
      actor.stop()
      const open = socket
      socket = undefined
      open?.close()
    },
  }
}
