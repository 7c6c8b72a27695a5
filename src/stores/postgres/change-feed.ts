import type { Client } from 'pg'
import { CorruptRowError } from '../../protocol/internal.js'
import type { StoreChange } from '../../protocol/internal.js'
import { createBackstopPoll } from './backstop-poll.js'
import { createListenConnection } from './listen-connection.js'
import { askColumns, revisionOf, toAskRecord } from './rows.js'
import type { AskRow } from './rows.js'
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

/** How long the poll's liveness check waits for the LISTEN connection to answer. */
const ALIVE_TIMEOUT_MS = 10_000

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
 * The connection and its reconnection live in `listen-connection.ts` (their
 * lifecycle a machine, `listen.machine.ts`), the poll in `backstop-poll.ts`;
 * here, what notifications say and the rows read for them.
 */
export function createChangeFeed(deps: ChangeFeedDependencies) {
  let running = false

  // Ids named by notifications, read in one query per turn of the event loop.
  const noticed = new Set<string>()
  let flushScheduled = false
  let resyncNoticed = false
  let leasesNoticed = false
  // askId -> the revision last emitted, so the poll does not repeat what a
  // notification delivered. Pruned below the poll's floor.
  const emitted = new Map<string, number>()

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

  const listener = createListenConnection({
    ready: () => deps.ready(),
    newClient: () => deps.newClient(),
    report: (event) => deps.report(event),
    listening: () => deps.emit({ type: 'resync' }),
    notice: onNotice,
    // Generous: a busy server is not a dead connection, and a needless
    // reconnect costs every watcher a resync.
    aliveTimeoutMs: Math.max(deps.pollIntervalMs, ALIVE_TIMEOUT_MS),
  })
  const backstop = createBackstopPoll({
    query: (text, values) => deps.query(text, values),
    emit: (change) => deps.emit(change),
    report: (event) => deps.report(event),
    emitRows,
    emitted,
    checkAlive: () => listener.checkAlive(),
    pollIntervalMs: deps.pollIntervalMs,
  })

  return {
    /** Opens the LISTEN connection and starts the poll; idempotent. */
    start(): void {
      if (running) return
      running = true
      listener.start()
      backstop.start()
    },
    /** Closes the LISTEN connection and stops every timer; idempotent. */
    async stop(): Promise<void> {
      running = false
      backstop.stop()
      emitted.clear()
      noticed.clear()
      leasesNoticed = false
      resyncNoticed = false
      await listener.stop()
    },
  }
}
