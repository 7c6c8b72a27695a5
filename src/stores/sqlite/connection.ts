import { statSync } from 'node:fs'
import type BetterSqlite3 from 'better-sqlite3'
import { CorruptRowError, importPeer } from '../../protocol/internal.js'
import { migrate } from './schema.js'

/** What {@link createConnection} needs. */
export interface ConnectionOptions {
  path: string
  /** How long a call keeps retrying a file another writer holds locked. */
  busyTimeoutMs: number
}

/** One lazily opened better-sqlite3 connection, reopened when the file goes away. */
export interface Connection {
  /**
   * Runs `work` (synchronous, as better-sqlite3 is) on the open connection,
   * opening it first if needed; while the file is locked by another writer it
   * retries, yielding the event loop between tries, until `busyTimeoutMs`.
   */
  run<T>(what: string, work: (db: BetterSqlite3.Database) => T): Promise<T>
  /** One try of {@link Connection.run}, no retry: for the change feed's poll. */
  attempt<T>(what: string, work: (db: BetterSqlite3.Database) => T): Promise<T>
  /** The open connection, if there is one (no check that its file is still there). */
  current(): BetterSqlite3.Database | undefined
  /** Counts (re)opens, so the change feed can tell it may have missed changes. */
  generation(): number
  close(): void
}

/**
 * better-sqlite3 waits for a lock by sleeping the thread, which would freeze
 * the event loop (and every other ask) for the whole busy timeout. It waits
 * only this long; the rest of the wait is asynchronous.
 */
const THREAD_BUSY_WAIT_MS = 5
const MAX_PAUSE_MS = 50

/** SQLite results after which the connection is dropped and the next call opens the path again. */
const REOPEN_CODES = /^SQLITE_(IOERR|CORRUPT|NOTADB|CANTOPEN|READONLY_DBMOVED)/

type Driver = typeof BetterSqlite3

// Loaded with the entry point (DESIGN §1): importing askseam/sqlite without
// better-sqlite3 throws one line naming it.
const { default: driver } = await importPeer(
  'askseam/sqlite',
  'better-sqlite3',
  () => import('better-sqlite3'),
)

function loadDriver(): Promise<Driver> {
  return Promise.resolve(driver)
}

// Stryker disable next-line StringLiteral,OptionalChaining: no code matches neither pattern, whatever stands for it; nothing throws null
const codeOf = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? '')
const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error)
// Stryker disable next-line Regex: no SQLite code has BUSY or LOCKED past its start
const isBusy = (error: unknown): boolean => /^SQLITE_(BUSY|LOCKED)/.test(codeOf(error))

/** Opens `options.path` only when first used, and again after it was deleted or replaced. */
export function createConnection(options: ConnectionOptions): Connection {
  const { path, busyTimeoutMs } = options
  const inMemory = path === ':memory:' || path === ''
  let db: BetterSqlite3.Database | undefined
  let identity: { dev: number; ino: number } | undefined
  let opens = 0
  let closed = false

  const drop = (): void => {
    const stale = db
    db = undefined
    identity = undefined
    try {
      // Stryker disable next-line OptionalChaining: closing nothing throws here and is caught below
      stale?.close()
    } catch {
      // Closing a connection to a vanished file may fail; it is dropped either way.
    }
  }

  const open = async (): Promise<BetterSqlite3.Database> => {
    // close() dropped the connection: a closed store reaches the check below.
    if (db !== undefined) {
      if (!inMemory && !sameFile()) {
        drop()
        throw new Error(
          `askseam/sqlite: ${path} was deleted or replaced while open; the next call opens the path anew`,
        )
      }
      return db
    }
    const Database = await loadDriver()
    // Also after the await: close() may have come while the driver loaded.
    if (closed) throw new Error(`askseam/sqlite: the store on ${path} is closed`)
    // Another call may have opened it while this one awaited the driver.
    if (db !== undefined) return db
    let fresh: BetterSqlite3.Database | undefined
    try {
      const opened = new Database(path, { timeout: THREAD_BUSY_WAIT_MS })
      fresh = opened
      opened.pragma('journal_mode = WAL')
      opened.pragma('synchronous = FULL')
      migrate(opened)
      if (!inMemory) {
        const stat = statSync(path)
        identity = { dev: stat.dev, ino: stat.ino }
      }
    } catch (error: unknown) {
      fresh?.close()
      if (isBusy(error)) throw error
      throw new Error(`askseam/sqlite: cannot open ${path}: ${messageOf(error)}`, { cause: error })
    }
    db = fresh
    // Stryker disable next-line AssignmentOperator: the change feed only compares generations for equality
    opens += 1
    return fresh
  }

  const sameFile = (): boolean => {
    let stat
    try {
      stat = statSync(path)
    } catch {
      return false
    }
    // Stryker disable next-line ConditionalExpression,BooleanLiteral,OptionalChaining: a test cannot move the file to another device; identity is set whenever db is
    if (stat.dev !== identity?.dev) return false
    return stat.ino === identity.ino
  }

  const attempt = async <T>(what: string, work: (db: BetterSqlite3.Database) => T): Promise<T> => {
    const current = await open()
    try {
      return work(current)
    } catch (error: unknown) {
      if (error instanceof CorruptRowError || isBusy(error)) throw error
      if (REOPEN_CODES.test(codeOf(error)) && db === current) drop()
      throw new Error(`askseam/sqlite: ${what} failed: ${messageOf(error)}`, { cause: error })
    }
  }

  return {
    attempt,
    async run(what, work) {
      const started = Date.now()
      let pause = 1
      for (;;) {
        try {
          return await attempt(what, work)
        } catch (error: unknown) {
          if (!isBusy(error)) throw error
          // Stryker disable next-line EqualityOperator: one millisecond more of waiting is not observable
          if (Date.now() - started >= busyTimeoutMs) {
            throw new Error(
              `askseam/sqlite: ${what} failed: ${path} stayed locked by another writer for ${busyTimeoutMs} ms (${codeOf(error)})`,
              { cause: error },
            )
          }
          await new Promise((resolve) => setTimeout(resolve, pause))
          // Stryker disable next-line MethodExpression,ArithmeticOperator: the pause between tries is timing, not behaviour
          pause = Math.min(pause * 2, MAX_PAUSE_MS)
        }
      }
    },
    current: () => db,
    generation: () => opens,
    close() {
      closed = true
      drop()
    },
  }
}
