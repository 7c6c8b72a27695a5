import type BetterSqlite3 from 'better-sqlite3'
import { CorruptRowError, notifyEach } from '../../protocol/internal.js'
import type { StoreChange } from '../../protocol/internal.js'
import type { Connection } from './connection.js'
import { decodeAsk } from './rows.js'
import { statementsOf } from './statements.js'
import type { AskRow } from './rows.js'

/** The change feed behind `watch`. */
export interface ChangeFeed {
  watch(listener: (change: StoreChange) => void): () => void
  /**
   * Tells this process's watchers of its own write, which `data_version`
   * does not report to the connection that made it. `revision` is the
   * counter value the write set, so the poll need not read it back.
   */
  local(
    change: StoreChange,
    revision: { asks?: number | undefined; leases?: number; purges?: number },
  ): void
  close(): void
}

/** What the poll reports besides changes. */
export interface ChangeFeedOptions {
  intervalMs: number
  onCorruptRow: (error: CorruptRowError) => void
}

interface Seen extends Revision {
  generation: number
  dataVersion: number
}

interface Revision {
  asks: number
  leases: number
  purges: number
}

/** The counters a write bumps: rows of asks and leases changed, purges made. */
function readRevision(db: BetterSqlite3.Database): Revision {
  const statements = statementsOf(db)
  const { asks, leases } = statements.revision.get() as { asks: number; leases: number }
  const { user_version: purges } = statements.purges.get() as { user_version: number }
  return { asks, leases, purges }
}

/** SQLite's count of commits by other connections, as this connection sees it. */
function dataVersionOf(db: BetterSqlite3.Database): number {
  return (statementsOf(db).dataVersion.get() as { data_version: number }).data_version
}

/** Where the feed stands now, for a connection of `generation`. */
function baseline(db: BetterSqlite3.Database, generation: number): Seen {
  return { generation, dataVersion: dataVersionOf(db), ...readRevision(db) }
}

/**
 * What other connections changed since `last`, which is moved up to now: the
 * asks admitted or settled, a change of leases, or a resync when rows may
 * have gone unread (counters gone back, rows purged, a row that is corrupt).
 */
function changesSince(
  db: BetterSqlite3.Database,
  last: Seen,
  onCorruptRow: (error: CorruptRowError) => void,
): StoreChange[] {
  const changes: StoreChange[] = []
  const revision = readRevision(db)
  if (revision.leases !== last.leases) changes.push({ type: 'leases.changed' })
  last.leases = revision.leases
  if (revision.asks < last.asks || revision.purges !== last.purges) {
    // Counters gone back (the file was replaced) or rows deleted that may be ones not yet read.
    last.asks = revision.asks
    last.purges = revision.purges
    changes.push({ type: 'resync' })
    return changes
  }
  // Stryker disable next-line ConditionalExpression: without it the tick reads an empty range of rows
  if (revision.asks === last.asks) return changes
  const rows = statementsOf(db).changedSince.all(last.asks, revision.asks) as AskRow[]
  last.asks = revision.asks
  let corrupt = false
  for (const row of rows) {
    try {
      const record = decodeAsk(row)
      changes.push({
        type: record.state === 'pending' ? 'ask.admitted' : 'ask.settled',
        record,
      })
    } catch (error: unknown) {
      // Stryker disable next-line ConditionalExpression: decodeAsk throws nothing but CorruptRowError
      if (!(error instanceof CorruptRowError)) throw error
      onCorruptRow(error)
      corrupt = true
    }
  }
  // A watcher waiting on the corrupt ask learns it by rereading (and failing).
  if (corrupt) changes.push({ type: 'resync' })
  return changes
}

/**
 * Cross-process change detection by polling, which costs one
 * `PRAGMA data_version` per tick while nothing changed: SQLite bumps it on
 * this connection whenever another connection commits. Only then are the
 * rows above the last revision seen read. Polls only while someone watches.
 */
export function createChangeFeed(connection: Connection, options: ChangeFeedOptions): ChangeFeed {
  const listeners = new Set<(change: StoreChange) => void>()
  let timer: ReturnType<typeof setInterval> | undefined
  // Undefined until the first successful read: what happened before that is unknown.
  let seen: Seen | undefined
  let polling = false
  let closed = false

  const emit = (change: StoreChange): void => notifyEach(listeners, change)

  const poll = (db: BetterSqlite3.Database): StoreChange[] => {
    if (seen === undefined || seen.generation !== connection.generation()) {
      // First read, or a reopened file: anything may have happened since.
      seen = db.transaction(() => baseline(db, connection.generation())).deferred()
      return [{ type: 'resync' }]
    }
    // The whole cost of a tick while nothing changed: no transaction, no row read.
    const dataVersion = dataVersionOf(db)
    // Stryker disable next-line ConditionalExpression: without it the tick reads the revision and finds nothing new
    if (dataVersion === seen.dataVersion) return []
    seen.dataVersion = dataVersion
    const last = seen
    return db.transaction(() => changesSince(db, last, options.onCorruptRow)).deferred()
  }

  // A tick runs to its end within one turn of the event loop (the driver is
  // loaded, the work synchronous), so the guard never fires today; it keeps
  // two ticks from interleaving should opening ever wait for real.
  const tick = async (): Promise<void> => {
    // Stryker disable next-line ConditionalExpression: ticks do not overlap (above)
    if (polling) return
    // Stryker disable next-line BooleanLiteral: ticks do not overlap (above)
    polling = true
    try {
      // Stryker disable next-line StringLiteral: the tick drops the error and its message
      const changes = await connection.attempt('watch', poll)
      for (const change of changes) emit(change)
      // Stryker disable next-line BlockStatement: each failure that can lose changes reopens the file, and the new generation says resync anyway
    } catch {
      // Unreadable for now (locked, deleted, not yet openable): resync once it reads again.
      seen = undefined
    } finally {
      polling = false
    }
  }

  const stop = (): void => {
    // Stryker disable next-line ConditionalExpression: clearInterval(undefined) does nothing
    if (timer !== undefined) clearInterval(timer)
    timer = undefined
  }

  return {
    watch(listener) {
      // Stryker disable next-line ConditionalExpression: a closed connection fails every poll, so the listener hears nothing either way
      if (closed) return () => undefined
      const own = (change: StoreChange): void => listener(change)
      listeners.add(own)
      if (timer === undefined) {
        seen = undefined
        const db = connection.current()
        // Stryker disable next-line ConditionalExpression: without a connection the TypeError is caught and seen stays undefined
        if (db !== undefined) {
          try {
            seen = db.transaction(() => baseline(db, connection.generation())).deferred()
          } catch {
            // Unreadable now: the first tick sets the baseline.
          }
        }
        timer = setInterval(() => void tick(), options.intervalMs)
        timer.unref()
        // Not open yet: the first read sets the baseline and, since a change
        // may have landed before it, says resync.
        // Stryker disable next-line ConditionalExpression: a tick with the baseline set finds nothing new
        if (seen === undefined) void tick()
      }
      return () => {
        listeners.delete(own)
        if (listeners.size === 0) stop()
      }
    },
    local(change, revision) {
      if (seen !== undefined) {
        // Nobody else wrote in between: the poll has nothing of this write to read.
        if (revision.asks === seen.asks + 1) seen.asks += 1
        if (revision.leases === seen.leases + 1) seen.leases += 1
        if (revision.purges === seen.purges + 1) seen.purges += 1
      }
      // Stryker disable next-line ConditionalExpression: emitting to nobody does nothing
      if (listeners.size === 0) return
      queueMicrotask(() => emit(change))
    },
    // Stryker disable next-line BlockStatement: after close the connection fails every poll, and no write reaches local()
    close() {
      // Stryker disable next-line BooleanLiteral: as above, a watch after close hears nothing either way
      closed = true
      stop()
      listeners.clear()
    },
  }
}
