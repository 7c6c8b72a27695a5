import { createActor, fromPromise } from 'xstate'
import type { StoreChange } from '../../protocol/internal.js'
import { backstopMachine } from './backstop.machine.js'
import type { BackstopPollOutput, BackstopStanding } from './backstop.machine.js'
import { unrefClock } from './listen-connection.js'
import type { Clock } from './listen-connection.js'
import { askColumns, revisionOf } from './rows.js'
import type { AskRow } from './rows.js'
import type { PostgresStoreEvent } from './types.js'

/** What the backstop poll needs from its feed. */
export interface BackstopPollDependencies {
  /** Runs one statement on the store's pool; rows in raw text. */
  query<TRow>(text: string, values: unknown[]): Promise<TRow[]>
  emit(change: StoreChange): void
  report(event: PostgresStoreEvent): void
  /** Emits rows as changes (and records their revisions in `emitted`). */
  emitRows(rows: AskRow[]): void
  /** askId -> the revision last emitted, shared with the notifications' reads. */
  emitted: Map<string, number>
  /** The LISTEN connection's liveness check, run before each poll. */
  checkAlive(): Promise<void>
  pollIntervalMs: number
  /** The clock of the poll's interval (a test's `SimulatedClock`); unref'd timers by default. */
  clock?: Clock
}

/** Changed rows one poll emits; more than that and it asks for a resync instead. */
const POLL_LIMIT = 500

/**
 * The slow poll behind the notifications: it checks the LISTEN connection is
 * alive, then emits the rows whose revision moved since the last polls that
 * no notification delivered, and a change of leases. When it polls, and
 * what a poll stopped midway may still do (nothing), is
 * {@link backstopMachine}'s; here, the reads and what is told of them.
 */
export function createBackstopPoll(deps: BackstopPollDependencies) {
  const { emitted } = deps

  /** The newest revision in the table (0 for none). */
  const newest = async (): Promise<number> => {
    const rows = await deps.query<{ revision: string | null }>(
      'SELECT max(revision) AS revision FROM askseam_asks',
      [],
    )
    // Stryker disable next-line OptionalChaining: an aggregate without GROUP BY answers one row
    return Number(rows[0]?.revision ?? 0)
  }

  // The poll reads revisions above the highest one seen two polls ago: a
  // write whose revision was drawn before one poll but committed after it is
  // still caught by the next.
  const readAsks = async (
    standing: BackstopStanding,
  ): Promise<Pick<BackstopPollOutput, 'found'> & { seenLast: number; seenBeforeLast: number }> => {
    const { seenLast } = standing
    if (seenLast === undefined) {
      // The first poll only learns where the revisions stand.
      const at = await newest()
      return { found: { kind: 'baseline' }, seenLast: at, seenBeforeLast: at }
    }
    const floor = standing.seenBeforeLast ?? seenLast
    const rows = await deps.query<AskRow>(
      `SELECT ${askColumns()} FROM askseam_asks WHERE revision > $1 ORDER BY revision LIMIT $2`,
      [floor, POLL_LIMIT + 1],
    )
    if (rows.length > POLL_LIMIT) {
      const at = await newest()
      return { found: { kind: 'overflow' }, seenLast: at, seenBeforeLast: at }
    }
    const seen = Math.max(seenLast, ...rows.map(revisionOf))
    return { found: { kind: 'rows', rows, floor }, seenLast: seen, seenBeforeLast: seenLast }
  }

  const poll = async (standing: BackstopStanding): Promise<BackstopPollOutput> => {
    await deps.checkAlive()
    const { found, seenLast, seenBeforeLast } = await readAsks(standing)
    const leaseRows = await deps.query<{ leases: string | null }>(
      `SELECT string_agg(seam_id || ':' || provider_active::text, ',' ORDER BY seam_id COLLATE "C") AS leases
        FROM askseam_leases`,
      [],
    )
    // Stryker disable next-line OptionalChaining: as above
    const leases = leaseRows[0]?.leases ?? null
    return {
      standing: { seenLast, seenBeforeLast, leases },
      found,
      leasesChanged: standing.leases !== undefined && standing.leases !== leases,
    }
  }

  const tell = (output: BackstopPollOutput): void => {
    const { found } = output
    if (found.kind === 'overflow') {
      emitted.clear()
      deps.emit({ type: 'resync' })
    } else if (found.kind === 'rows') {
      // Stryker disable next-line StringLiteral: ask_id is the primary key, never NULL
      const fresh = found.rows.filter(
        (row) => (emitted.get(row.ask_id ?? '') ?? -1) < revisionOf(row),
      )
      for (const [askId, revision] of emitted) if (revision <= found.floor) emitted.delete(askId)
      deps.emitRows(fresh)
    }
    if (output.leasesChanged) deps.emit({ type: 'leases.changed' })
  }

  const actor = createActor(
    backstopMachine.provide({
      actors: { poll: fromPromise(({ input }) => poll(input)) },
      actions: {
        tell: (_, output) => tell(output),
        reportFailure: (_, { error }) => deps.report({ type: 'poll.failed', error }),
      },
    }),
    { input: { pollIntervalMs: deps.pollIntervalMs }, clock: deps.clock ?? unrefClock },
  )
  actor.start()

  return {
    /** Starts polling, the first poll `pollIntervalMs` from now. */
    start: (): void => actor.send({ type: 'start' }),
    /** Stops polling (a poll in flight finishes unheard) and forgets where it stood. */
    stop: (): void => actor.send({ type: 'stop' }),
  }
}
