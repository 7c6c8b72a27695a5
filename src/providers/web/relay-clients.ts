import { createActor } from 'xstate'
import type { Actor } from 'xstate'
import { relayClientMachine } from '../../machines/index.js'
import { createFanOut } from './fan-out.js'
import { relayLimits } from './relay-limits.js'
import type { RelayLimits } from './relay-limits.js'
import type { Outbox } from './fan-out.js'
import { admits } from '../../vocabulary/index.js'
import type { Responder } from '../../vocabulary/index.js'
import { RelayErrorCodes } from './frames.js'
import type { ErrorFrame, HelloFrame } from './frames.js'
import type { RelayClient, RelayConnection, RelayOptions } from './relay-types.js'

/*
 * The relay's clients: each connection's `relayClientMachine` (rate limit,
 * why it closed), who may see which session, and the fan-out that writes
 * their frames without letting one slow reader hold the others back.
 */

/** One connected client and what the relay keeps beside it. */
export interface Connection<TClient> {
  /** How the relay's asks name this connection in their receipts. */
  id: string
  client: TClient
  actor: Actor<typeof relayClientMachine>
  outbox: Outbox
}

/** What the clients part hands a connection's frames to, and asks of the relay's asks. */
export interface ClientHooks<TClient> {
  /** A frame the client sent, past its rate limit. */
  onFrame(connection: Connection<TClient>, data: string): void
  /** Queues, for a client that just connected (and told who it is, when known), every pending ask it may see. */
  replay(connection: Connection<TClient>): void
}

/** Creates the relay's clients part (see the file's comment). */
export function createRelayClients<TClient extends RelayClient>(
  options: RelayOptions<TClient>,
  hooks: ClientHooks<TClient>,
) {
  const { authorize } = options
  const limits = relayLimits(options)
  /** Least recently active first: a connection moves to the end when it connects or answers. */
  const connections = new Set<Connection<TClient>>()
  const byId = new Map<string, Connection<TClient>>()
  let clients = 0

  const fanOut = connectionsFanOut<TClient>(limits)

  const mayAccess = (client: TClient, sessionId: string | undefined): boolean => {
    if (authorize === undefined) return true
    try {
      return authorize(client, sessionId) === true
    } catch {
      return false
    }
  }

  /** Who the person behind `client` is; a throw counts as nobody. */
  const responderOf = (client: TClient): Responder | undefined => {
    try {
      return options.responderOf?.(client)
    } catch {
      return undefined
    }
  }

  /** Whether `client` may see and answer an ask: its session, and its `answerers` (DESIGN §12). */
  const mayAnswer = (
    client: TClient,
    ask: { sessionId: string | undefined; answerers: readonly string[] | undefined },
  ): boolean => mayAccess(client, ask.sessionId) && admits(ask.answerers, responderOf(client))

  /** Queues a frame for one client; callers flush once they have queued what they had to say. */
  const sendTo = (connection: Connection<TClient>, data: string): void => {
    if (isOpen(connection)) fanOut.enqueue(connection, data)
  }

  return {
    mayAccess,
    mayAnswer,
    responderOf,
    sendTo,
    flush: fanOut.flush,
    /** Takes back a frame not yet written to any client. */
    withdraw: fanOut.withdraw,
    byId: (id: string) => byId.get(id),
    count: () => connections.size,

    /** Sends a frame to every client `mayReceive` lets see it, most recently active first. */
    broadcast(mayReceive: (client: TClient) => boolean, data: string): void {
      const recipients = [...connections]
      for (let index = recipients.length - 1; index >= 0; index--) {
        const connection = recipients[index] as Connection<TClient>
        if (mayReceive(connection.client)) sendTo(connection, data)
      }
      fanOut.flush()
    },

    /** The client that answers is the one a person is using: it hears first from now on. */
    touch(connection: Connection<TClient>): void {
      if (connections.delete(connection)) connections.add(connection)
    },

    connect(client: TClient, disposed: boolean): RelayConnection {
      const id = `client-${++clients}`
      const actor = createActor(relayClientMachine, {
        input: {
          clientId: id,
          maxFrames: limits.maxFramesPerWindow,
          windowMs: limits.rateWindowMs,
        },
      })
      const connection: Connection<TClient> = {
        id,
        client,
        actor,
        outbox: { frames: [], bytes: 0 },
      }
      byId.set(id, connection)
      actor.on('frame.accepted', ({ data }) => {
        hooks.onFrame(connection, data)
        fanOut.flush()
      })
      actor.on('client.throttled', ({ maxFrames: limit, windowMs: window }) => {
        const notice: ErrorFrame = {
          type: 'error',
          code: RelayErrorCodes.RATE_LIMITED,
          message: `more than ${limit} frames in ${window} ms: frames are dropped for ${window} ms, then accepted again`,
        }
        sendTo(connection, JSON.stringify(notice))
        fanOut.flush()
      })
      actor.subscribe({
        complete() {
          connections.delete(connection)
          byId.delete(id)
          fanOut.drop(connection)
          const reason = actor.getSnapshot().context.closeReason
          if (reason === 'congested' || reason === 'relay-disposed') {
            try {
              client.close(reason)
            } catch {
              // The transport is already gone; nothing is left to close.
            }
          }
        },
      })
      actor.start()
      if (disposed) {
        actor.send({ type: 'relay.disposed' })
      } else {
        connections.add(connection)
        const responder = responderOf(client)
        if (responder !== undefined) sendTo(connection, helloFrame(responder))
        hooks.replay(connection)
        fanOut.flush()
      }
      const deliver = (
        event: { type: 'frame.received'; data: string } | { type: 'client.disconnected' },
      ) => {
        // A transport may still report a frame or a close after the relay dropped the client.
        if (actor.getSnapshot().status === 'active') actor.send(event)
      }
      return {
        receive: (data: string) => deliver({ type: 'frame.received', data }),
        disconnect: () => deliver({ type: 'client.disconnected' }),
        get closed() {
          return actor.getSnapshot().status !== 'active'
        },
      }
    },

    /** Writes what every client is owed, then closes each (the relay was disposed). */
    disposeAll(): void {
      fanOut.flush(Infinity, true)
      for (const connection of [...connections]) connection.actor.send({ type: 'relay.disposed' })
    },
  }
}

const isOpen = (connection: Connection<unknown>) =>
  connection.actor.getSnapshot().status === 'active'

/** The fan-out that writes to the relay's connections, paced by each reader (see fan-out.ts). */
function connectionsFanOut<TClient extends RelayClient>(limits: RelayLimits) {
  return createFanOut<Connection<TClient>>({
    framesPerTurn: limits.framesPerTurn,
    outboxOf: (connection) => connection.outbox,
    backlogOf: (connection) => backlogOf(connection.client),
    maxBacklogBytes: limits.maxBufferedBytes,
    stallMs: limits.stallTimeoutMs,
    onStalled: (connection) => {
      if (isOpen(connection)) connection.actor.send({ type: 'client.congested' })
    },
    write(connection, data) {
      if (!isOpen(connection)) return false
      try {
        connection.client.send(data)
      } catch {
        connection.actor.send({ type: 'client.disconnected' })
        return false
      }
      return true
    },
  })
}

/** Who a client is, as the first frame of its connection says. */
function helloFrame({ id, name, roles }: Responder): string {
  const user: HelloFrame['user'] = { id }
  if (name !== undefined) user.name = name
  if (roles !== undefined) user.roles = roles
  return JSON.stringify({ type: 'hello', user } satisfies HelloFrame)
}

/** How much a client's transport has not sent yet; a throwing or odd reading counts as none. */
function backlogOf(client: RelayClient): number {
  try {
    const amount = client.bufferedAmount
    return typeof amount === 'number' && amount > 0 ? amount : 0
  } catch {
    return 0
  }
}
