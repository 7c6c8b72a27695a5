import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import path from 'node:path'
import type { AskStore } from '../protocol/index.js'
import { UsageError } from './flags.js'

/** Where a command keeps its asks: one SQLite file on this machine, or Postgres for many. */
export interface StoreChoice {
  /** `--store FILE`: a SQLite file shared by the processes on this machine. */
  sqlitePath?: string
  /** `--postgres URL`: a database shared by processes on many hosts. */
  postgresUrl?: string
}

/**
 * Refuses, as a usage mistake (one line, exit code 2), flags that name two
 * stores, or, for a command that `needs` one (`askseam history reads a
 * store`), none.
 */
export function checkStoreChoice(choice: StoreChoice, needs?: string): void {
  if (choice.sqlitePath !== undefined && choice.postgresUrl !== undefined) {
    throw new UsageError('give either --store FILE or --postgres URL, not both')
  }
  if (needs !== undefined && choice.sqlitePath === undefined && choice.postgresUrl === undefined) {
    throw new UsageError(`${needs}: give --store FILE or --postgres URL`)
  }
}

/** Opens the store the flags name (loading its driver only then), or `undefined` for none. */
export async function openStore(choice: StoreChoice): Promise<AskStore | undefined> {
  checkStoreChoice(choice)
  if (choice.sqlitePath !== undefined) {
    const { createSqliteStore } = await import('../stores/sqlite/index.js')
    return createSqliteStore({ path: path.resolve(choice.sqlitePath) })
  }
  if (choice.postgresUrl !== undefined) {
    const { createPostgresStore } = await import('../stores/postgres/index.js')
    return createPostgresStore({ connectionString: choice.postgresUrl })
  }
  return undefined
}

/**
 * The shared store a serving command (`console`, `notify`) runs on, read
 * once before it starts. Creating a store never throws for one that cannot be
 * reached (DESIGN §10); a command that serves nothing would look alive and
 * idle for ever, so an unreadable store is one line instead.
 */
export async function openServedStore(choice: StoreChoice, command: string): Promise<AskStore> {
  checkStoreChoice(choice, `askseam ${command} serves a shared store`)
  const store = (await openStore(choice)) as AskStore
  try {
    await store.pending()
  } catch (error: unknown) {
    await store.close().catch(() => undefined)
    const where = choice.sqlitePath ?? 'the Postgres database'
    // The SQLite store names itself and the file; the line names them once.
    const reason = (error instanceof Error ? error.message : String(error)).replace(
      /^askseam\/sqlite: cannot open .*?: (?=[^:]+$)/,
      '',
    )
    throw new Error(`cannot open the ${command}'s store, ${where}: ${reason}`, { cause: error })
  }
  return store
}

/**
 * What a demo's kept asks belong to, for its flags: `terminal` or `web`, then
 * the framework when there is one. Each kind keeps its own file, so one demo
 * never takes over another's open question.
 */
export function demoKind(options: { web: boolean; framework?: string }): string {
  const ui = options.web ? 'web' : 'terminal'
  return options.framework === undefined ? ui : `${ui}-${options.framework}`
}

/** Who runs the demo, for a folder of that user's own (a shared temp folder holds every user's). */
function userName(): string {
  try {
    return userInfo().username.replace(/[^\w.-]/g, '_') || String(process.getuid?.() ?? 'user')
  } catch {
    // No passwd entry for this uid (a container): the uid still tells users apart.
    return String(process.getuid?.() ?? 'user')
  }
}

/**
 * The file `npm start` keeps its asks in, so a demo killed mid-question
 * resumes: one per user and per demo kind in the temp folder, or
 * `ASKSEAM_DEMO_STORE` when set (two demos on one file would share their
 * questions, as any two processes on one store do).
 */
export function demoStorePath(kind: string): string {
  const chosen = process.env.ASKSEAM_DEMO_STORE
  return chosen !== undefined && chosen !== ''
    ? path.resolve(chosen)
    : path.join(tmpdir(), `askseam-demo-${userName()}`, `${kind}.sqlite`)
}

/**
 * The demo's store: its SQLite file (`--fresh` deletes it first), or, where
 * better-sqlite3 is not installed, `undefined` (the memory store: nothing
 * outlives the process) and a note saying so. The note says whether this run
 * resumes one that stopped before its end (a finished demo deletes its file).
 */
export async function openDemoStore(
  kind: string,
  fresh: boolean,
): Promise<{
  store: AskStore | undefined
  note: string
  resumed: boolean
  forget: () => void
}> {
  const file = demoStorePath(kind)
  const forget = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
  }
  if (fresh) forget()
  try {
    const resumed = existsSync(file)
    mkdirSync(path.dirname(file), { recursive: true })
    const store = await openStore({ sqlitePath: file })
    return {
      store,
      resumed,
      note: resumed
        ? `Resumed the demo that stopped before its end (asks kept in ${file}): what was answered is not asked again; --fresh starts over.`
        : `Asks kept in ${file}: stop mid-question and run again to resume; --fresh starts over.`,
      forget,
    }
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error)
    return {
      store: undefined,
      resumed: false,
      note: `Asks are kept in memory only (${reason}).`,
      forget: () => undefined,
    }
  }
}
