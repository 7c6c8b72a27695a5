import type { Client, Notification } from 'pg'
import { createActor, fromPromise, waitFor } from 'xstate'
import type { ActorOptions, AnyActorLogic } from 'xstate'
import { listenMachine } from './listen.machine.js'
import { quoteIdentifier } from './schema.js'
import type { SchemaFacts } from './schema.js'
import type { PostgresStoreEvent } from './types.js'

/** XState's clock: what sets and clears the timers of a machine's delays. */
export type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>

/** What the LISTEN connection needs from its feed. */
export interface ListenConnectionDependencies {
  ready(): Promise<SchemaFacts>
  /** A new, unconnected client for the dedicated LISTEN connection. */
  newClient(): Client
  report(event: PostgresStoreEvent): void
  /** The LISTEN took effect: whatever was sent while it was down is gone. */
  listening(): void
  /** A notification's payload on the store's channel. */
  notice(payload: string): void
  /** How long the liveness check waits for the connection to answer. */
  aliveTimeoutMs: number
  /** The clock of the machine's delays (a test's `SimulatedClock`); unref'd timers by default. */
  clock?: Clock
}

/**
 * The store's timers do not keep a process up: a reconnect pending while
 * the server is down must not stop it from exiting.
 */
export const unrefClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
}

/** Ends a client quietly, hearing its notifications no more. */
function end(client: Client): Promise<void> {
  client.removeAllListeners('notification')
  return client.end().catch(() => undefined)
}

/**
 * The one dedicated connection the feed LISTENs on (a notification is sent to
 * the connections listening when it commits, so the connection must stay ours
 * and stay open), and its reconnection: a connection that fails or is lost is
 * ended and opened again after a backoff, for as long as the feed runs. Its
 * lifecycle is {@link listenMachine}; here, what it does to a `pg.Client`.
 */
export function createListenConnection(deps: ListenConnectionDependencies) {
  // The live client sits here, beside the actor, not in its context (context
  // is data) nor in an invoked actor's scope: stop() must wait for its end,
  // which an actor cannot hand back, and the ping and the clients' 'error' and
  // 'end' listeners must tell the kept client from a dropped one. The machine
  // alone decides when it is kept and released: it is set only while the
  // machine is `listening`.
  let client: Client | undefined
  // The end `release` began; stop() clears it before sending `stop`, so after
  // the send it is the end of the client that stop let go, if any.
  let released: Promise<void> | undefined

  /** A client's 'error' or 'end': only the kept one's loss is news. */
  const lose = (which: Client, error: unknown): void => {
    if (which === client) actor.send({ type: 'connection.lost', error })
  }

  const open = fromPromise<Client>(async () => {
    // The schema first: it names the channel, and its failure (server down)
    // costs no client.
    const { channel } = await deps.ready()
    const opening = deps.newClient()
    // Without an 'error' listener a dropped connection would crash the process.
    opening.on('error', (error: unknown) => lose(opening, error))
    opening.on('end', () => lose(opening, new Error('the LISTEN connection ended')))
    opening.on('notification', (message: Notification) => {
      // Stryker disable next-line StringLiteral: a notification without a payload asks for a resync, as one of a kind the feed does not know does
      if (message.channel === channel) deps.notice(message.payload ?? '')
    })
    try {
      await opening.connect()
      await opening.query(`LISTEN ${quoteIdentifier(channel)}`)
    } catch (error: unknown) {
      void end(opening)
      throw error
    }
    return opening
  })

  const ping = fromPromise<void>(async () => {
    await client?.query('SELECT 1')
  })

  const actor = createActor(
    listenMachine.provide({
      actors: { open, ping },
      actions: {
        keep: (_, opened) => {
          client = opened
        },
        discard: (_, late) => void end(late),
        release: () => {
          const current = client
          client = undefined
          if (current !== undefined) released = end(current)
        },
        reportConnected: (_, { reconnect }) =>
          deps.report({ type: 'listener.connected', reconnect }),
        reportLost: (_, { error }) => deps.report({ type: 'listener.lost', error }),
        reportFailed: (_, { error }) => deps.report({ type: 'listener.failed', error }),
        announceListening: () => deps.listening(),
      },
    }),
    { input: { aliveTimeoutMs: deps.aliveTimeoutMs }, clock: deps.clock ?? unrefClock },
  )
  actor.start()

  return {
    /** Opens the connection (again after every loss, until stopped); idempotent while running. */
    start(): void {
      actor.send({ type: 'start' })
    },

    /**
     * Checks the connection is alive, as a half-open TCP connection tells
     * nobody: one that does not answer in time is dropped and reopened.
     */
    async checkAlive(): Promise<void> {
      if (!actor.getSnapshot().matches('listening')) return
      actor.send({ type: 'alive.check' })
      await waitFor(actor, (snapshot) => !snapshot.matches({ listening: 'checking' }))
    },

    /** Closes the connection and cancels a pending reconnect; idempotent. */
    async stop(): Promise<void> {
      released = undefined
      actor.send({ type: 'stop' })
      await released
    },
  }
}
