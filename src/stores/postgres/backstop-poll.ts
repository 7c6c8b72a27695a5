import type { StoreChange } from '../../protocol/internal.js'
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
}

/** Changed rows one poll emits; more than that and it asks for a resync instead. */
const POLL_LIMIT = 500

/**
 * The slow poll behind the notifications: it checks the LISTEN connection is
 * alive, then emits the rows whose revision moved since the last polls that
 * no notification delivered, and a change of leases.
 */
export function createBackstopPoll(deps: BackstopPollDependencies) {
  const { emitted } = deps
  let pollTimer: NodeJS.Timeout | undefined
  // Each start() and stop() begins a generation. A poll still in flight from
  // an earlier one must not start a second chain of polls, nor write its
  // answers into the bookkeeping stop() cleared for the next start.
  let generation = 0
  // The poll reads revisions above the highest one seen two polls ago: a
  // write whose revision was drawn before one poll but committed after it is
  // still caught by the next.
  let seenBeforeLast: number | undefined
  let seenLast: number | undefined
  let leaseFingerprint: string | null | undefined

  const poll = async (own: number): Promise<void> => {
    await deps.checkAlive()
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
    deps.emitRows(fresh)
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
    /** Starts a chain of polls, the first `pollIntervalMs` from now. */
    start(): void {
      generation += 1
      schedulePoll()
    },
    /** Stops the chain (a poll in flight finishes unheard) and forgets where it stood. */
    stop(): void {
      generation += 1
      clearTimeout(pollTimer)
      pollTimer = undefined
      seenLast = undefined
      seenBeforeLast = undefined
      leaseFingerprint = undefined
    },
  }
}
