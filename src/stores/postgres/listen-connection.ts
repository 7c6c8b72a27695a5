import type { Client, Notification } from 'pg'
import { quoteIdentifier } from './schema.js'
import type { SchemaFacts } from './schema.js'
import type { PostgresStoreEvent } from './types.js'

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
}

/** The first reconnect waits this long, then twice as long each time, up to the cap. */
const FIRST_RETRY_MS = 50
const MAX_RETRY_MS = 5_000

/**
 * The one dedicated connection the feed LISTENs on (a notification is sent to
 * the connections listening when it commits, so the connection must stay ours
 * and stay open), and its reconnection: a connection that fails or is lost is
 * ended and opened again after a backoff, for as long as the feed runs.
 */
export function createListenConnection(deps: ListenConnectionDependencies) {
  let running = false
  let client: Client | undefined
  let connecting = false
  let retryMs = FIRST_RETRY_MS
  let retryTimer: NodeJS.Timeout | undefined
  let everConnected = false

  const scheduleRetry = (): void => {
    if (!running) return
    // Stryker disable next-line ConditionalExpression: a retry is asked for only with no client and no attempt in flight, and stop() clears a pending one, so never while one is pending; this keeps a later caller from starting two
    if (retryTimer !== undefined) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      void connect()
    }, retryMs)
    retryTimer.unref()
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)
  }

  const drop = (lost: Client, error: unknown): void => {
    if (client !== lost) return
    client = undefined
    lost.removeAllListeners('notification')
    void lost.end().catch(() => undefined)
    deps.report({ type: 'listener.lost', error })
    scheduleRetry()
  }

  const connect = async (): Promise<void> => {
    if (connecting) return
    // Stryker disable next-line ConditionalExpression,LogicalOperator: start() and the retry timer call it only while running and with no client; this keeps a later caller from opening a second one
    if (!running || client !== undefined) return
    connecting = true
    let attempt: Client | undefined
    try {
      // The schema first: it names the channel, and its failure (server down)
      // costs no client.
      const { channel } = await deps.ready()
      const opening = deps.newClient()
      attempt = opening
      // Without an 'error' listener a dropped connection would crash the process.
      opening.on('error', (error: unknown) => drop(opening, error))
      opening.on('end', () => drop(opening, new Error('the LISTEN connection ended')))
      opening.on('notification', (message: Notification) => {
        // Stryker disable next-line StringLiteral: a notification without a payload asks for a resync, as one of a kind the feed does not know does
        if (message.channel === channel) deps.notice(message.payload ?? '')
      })
      await opening.connect()
      await opening.query(`LISTEN ${quoteIdentifier(channel)}`)
      if (!running) {
        await opening.end().catch(() => undefined)
        return
      }
      client = opening
      retryMs = FIRST_RETRY_MS
      deps.report({ type: 'listener.connected', reconnect: everConnected })
      everConnected = true
      deps.listening()
    } catch (error: unknown) {
      attempt?.removeAllListeners('notification')
      void attempt?.end().catch(() => undefined)
      if (running) deps.report({ type: 'listener.failed', error })
      scheduleRetry()
    } finally {
      connecting = false
    }
  }

  return {
    /** Opens the connection (again after every loss, until stopped); idempotent while running. */
    start(): void {
      running = true
      void connect()
    },

    /**
     * Checks the connection is alive, as a half-open TCP connection tells
     * nobody: one that does not answer in time is dropped and reopened.
     */
    async checkAlive(): Promise<void> {
      const current = client
      if (current === undefined) return
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error('the LISTEN connection did not answer')),
          deps.aliveTimeoutMs,
        )
      })
      try {
        await Promise.race([current.query('SELECT 1'), timeout])
      } catch (error: unknown) {
        drop(current, error)
      } finally {
        clearTimeout(timer)
      }
    },

    /** Closes the connection and cancels a pending reconnect; idempotent. */
    async stop(): Promise<void> {
      running = false
      // The next start's first connection is no reconnect: nobody watched in between.
      everConnected = false
      clearTimeout(retryTimer)
      retryTimer = undefined
      const current = client
      client = undefined
      if (current !== undefined) {
        current.removeAllListeners('notification')
        await current.end().catch(() => undefined)
      }
    },
  }
}
