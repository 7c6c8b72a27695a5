import type { Client, Notification } from 'pg'
import { CorruptRowError } from '../../protocol/internal.js'
import type { StoreChange } from '../../protocol/internal.js'
import { askColumns, revisionOf, toAskRecord } from './rows.js'
import type { AskRow } from './rows.js'
import { quoteIdentifier } from './schema.js'
import type { SchemaFacts } from './schema.js'
import type { PostgresStoreEvent } from './types.js'

/** What the change feed needs from its store. */
export interface ChangeFeedDependencies {
  ready(): Promise<SchemaFacts>
  /** Runs one statement on the store's pool; rows in raw text. */
  query<TRow>(text: string, values: unknown[]): Promise<TRow[]>
  /** A new, unconnected client for the dedicated LISTEN connection. */
  newClient(): Client
  emit(change: StoreChange): void
  report(event: PostgresStoreEvent): void
  corrupt(error: CorruptRowError): void
  pollIntervalMs: number
}

/** The first reconnect waits this long, then twice as long each time, up to the cap. */
const FIRST_RETRY_MS = 50
const MAX_RETRY_MS = 5_000
/** How long the poll's liveness check waits for the LISTEN connection to answer. */
const ALIVE_TIMEOUT_MS = 10_000
/** Changed rows one poll emits; more than that and it asks for a resync instead. */
const POLL_LIMIT = 500

/**
 * The store's change feed: LISTEN on one dedicated connection (a notification
 * is sent to the connections listening when it commits, so the connection
 * must stay ours and stay open), turned into {@link StoreChange}s.
 *
 * A notification sent while the connection is down is gone, so every time
 * the LISTEN takes effect — the first time too: anything committed between
 * `watch()` and then was missed — the feed emits `resync`. A slow poll backs
 * it up: it checks the connection is alive (a half-open TCP connection tells
 * nobody) and emits the rows whose revision moved since the last polls.
 */
export function createChangeFeed(deps: ChangeFeedDependencies) {
  let running = false
  let client: Client | undefined
  let connecting = false
  let retryMs = FIRST_RETRY_MS
  let retryTimer: NodeJS.Timeout | undefined
  let pollTimer: NodeJS.Timeout | undefined
  let everConnected = false
  // Each start() and stop() begins a generation. A poll still in flight from
  // an earlier one must not start a second chain of polls, nor write its
  // answers into the bookkeeping stop() cleared for the next start.
  let generation = 0

  // Ids named by notifications, read in one query per turn of the event loop.
  const noticed = new Set<string>()
  let flushScheduled = false
  let resyncNoticed = false
  let leasesNoticed = false
  // askId -> the revision last emitted, so the poll does not repeat what a
  // notification delivered. Pruned below the poll's floor.
  const emitted = new Map<string, number>()
  // The poll reads revisions above the highest one seen two polls ago: a
  // write whose revision was drawn before one poll but committed after it is
  // still caught by the next.
  let seenBeforeLast: number | undefined
  let seenLast: number | undefined
  let leaseFingerprint: string | null | undefined

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
        if (message.channel === channel) onNotice(message.payload ?? '')
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
      deps.emit({ type: 'resync' })
    } catch (error: unknown) {
      attempt?.removeAllListeners('notification')
      void attempt?.end().catch(() => undefined)
      if (running) deps.report({ type: 'listener.failed', error })
      scheduleRetry()
    } finally {
      connecting = false
    }
  }

  const onNotice = (payload: string): void => {
    // A connection being closed can still hear one; what it heard must not
    // be read out after the next start().
    if (!running) return
    const colon = payload.indexOf(':')
    const kind = colon === -1 ? payload : payload.slice(0, colon)
    if (kind === 'admitted' || kind === 'settled') noticed.add(payload.slice(colon + 1))
    else if (kind === 'leases') leasesNoticed = true
    else resyncNoticed = true
    // Stryker disable next-line ConditionalExpression: a second flush in the same turn finds nothing left, the first took every notice; what the flag saves is the call, not a query
    if (flushScheduled) return
    // Stryker disable next-line BooleanLiteral: as above
    flushScheduled = true
    setImmediate(() => void flush())
  }

  const flush = async (): Promise<void> => {
    flushScheduled = false
    const ids = [...noticed]
    noticed.clear()
    if (leasesNoticed) {
      leasesNoticed = false
      deps.emit({ type: 'leases.changed' })
    }
    if (resyncNoticed) {
      resyncNoticed = false
      deps.emit({ type: 'resync' })
      return
    }
    if (ids.length === 0) return
    try {
      const rows = await deps.query<AskRow>(
        `SELECT ${askColumns()} FROM askseam_asks WHERE ask_id = ANY($1::text[])`,
        [ids],
      )
      if (running) emitRows(rows)
    } catch {
      // The rows could not be read now: whoever watches rereads later.
      if (running) deps.emit({ type: 'resync' })
    }
  }

  /** Emits each row as a change; a row that does not parse asks for a resync instead. */
  const emitRows = (rows: AskRow[]): void => {
    let corrupt = false
    for (const row of rows) {
      let record
      try {
        record = toAskRecord(row)
      } catch (error: unknown) {
        // Stryker disable next-line ConditionalExpression: toAskRecord throws nothing but CorruptRowError
        if (!(error instanceof CorruptRowError)) throw error
        deps.corrupt(error)
        corrupt = true
        continue
      }
      emitted.set(record.askId, revisionOf(row))
      deps.emit(
        record.state === 'pending'
          ? { type: 'ask.admitted', record }
          : { type: 'ask.settled', record },
      )
    }
    if (corrupt) deps.emit({ type: 'resync' })
  }

  const poll = async (own: number): Promise<void> => {
    await checkConnection()
    try {
      await pollAsks(own)
      await pollLeases(own)
    } catch (error: unknown) {
      if (own === generation) deps.report({ type: 'poll.failed', error })
    }
    if (own === generation) schedulePoll()
  }

  const schedulePoll = (): void => {
    const own = generation
    pollTimer = setTimeout(() => void poll(own), deps.pollIntervalMs)
    pollTimer.unref()
  }

  const checkConnection = async (): Promise<void> => {
    const current = client
    if (current === undefined) return
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      // Generous: a busy server is not a dead connection, and a needless
      // reconnect costs every watcher a resync.
      timer = setTimeout(
        () => reject(new Error('the LISTEN connection did not answer')),
        Math.max(deps.pollIntervalMs, ALIVE_TIMEOUT_MS),
      )
    })
    try {
      await Promise.race([current.query('SELECT 1'), timeout])
    } catch (error: unknown) {
      drop(current, error)
    } finally {
      clearTimeout(timer)
    }
  }

  const pollAsks = async (own: number): Promise<void> => {
    if (seenLast === undefined) {
      // The first poll only learns where the revisions stand.
      await startAtNewest(own)
      return
    }
    const floor = seenBeforeLast ?? seenLast
    const rows = await deps.query<AskRow>(
      `SELECT ${askColumns()} FROM askseam_asks WHERE revision > $1 ORDER BY revision LIMIT $2`,
      [floor, POLL_LIMIT + 1],
    )
    if (own !== generation) return
    seenBeforeLast = seenLast
    if (rows.length > POLL_LIMIT) {
      if (await startAtNewest(own)) {
        emitted.clear()
        deps.emit({ type: 'resync' })
      }
      return
    }
    // Stryker disable next-line StringLiteral: ask_id is the primary key, never NULL
    const fresh = rows.filter((row) => (emitted.get(row.ask_id ?? '') ?? -1) < revisionOf(row))
    for (const row of rows) seenLast = Math.max(seenLast, revisionOf(row))
    for (const [askId, revision] of emitted) if (revision <= floor) emitted.delete(askId)
    emitRows(fresh)
  }

  /** Puts both floors at the newest revision; false, changing nothing, for a stale poll. */
  const startAtNewest = async (own: number): Promise<boolean> => {
    const rows = await deps.query<{ revision: string | null }>(
      'SELECT max(revision) AS revision FROM askseam_asks',
      [],
    )
    if (own !== generation) return false
    // Stryker disable next-line OptionalChaining: an aggregate without GROUP BY answers one row
    seenLast = Number(rows[0]?.revision ?? 0)
    seenBeforeLast = seenLast
    return true
  }

  const pollLeases = async (own: number): Promise<void> => {
    const rows = await deps.query<{ leases: string | null }>(
      `SELECT string_agg(seam_id || ':' || provider_active::text, ',' ORDER BY seam_id COLLATE "C") AS leases
        FROM askseam_leases`,
      [],
    )
    if (own !== generation) return
    // Stryker disable next-line OptionalChaining: as above
    const fingerprint = rows[0]?.leases ?? null
    const changed = leaseFingerprint !== undefined && leaseFingerprint !== fingerprint
    leaseFingerprint = fingerprint
    if (changed) deps.emit({ type: 'leases.changed' })
  }

  return {
    /** Opens the LISTEN connection and starts the poll; idempotent. */
    start(): void {
      if (running) return
      running = true
      generation += 1
      void connect()
      schedulePoll()
    },
    /** Closes the LISTEN connection and stops every timer; idempotent. */
    async stop(): Promise<void> {
      running = false
      generation += 1
      // The next start's first connection is no reconnect: nobody watched in between.
      everConnected = false
      clearTimeout(retryTimer)
      clearTimeout(pollTimer)
      retryTimer = undefined
      pollTimer = undefined
      seenLast = undefined
      seenBeforeLast = undefined
      leaseFingerprint = undefined
      emitted.clear()
      noticed.clear()
      leasesNoticed = false
      resyncNoticed = false
      const current = client
      client = undefined
      if (current !== undefined) {
        current.removeAllListeners('notification')
        await current.end().catch(() => undefined)
      }
    },
  }
}
