import type { Asks } from './asks.js'
import type { Presenter } from './presenter.js'
import { createStoreReads } from './store/late-reads.js'
import type { TrackedRead } from './store/late-reads.js'
import type { AskRecord, AskStore, StoreChange } from './store/types.js'
import { settledElsewhereOutcome, storeFailedOutcome } from '../vocabulary/index.js'
import type { AskOutcome, PendingAsk } from '../vocabulary/index.js'

/*
 * How a seam follows its store (DESIGN §10): it hears of asks admitted and
 * settled anywhere, and of leases changing, through the store's change feed,
 * and rereads the pending asks when the feed may have missed some. Another
 * seam's pending ask goes to the provider; a settlement committed anywhere
 * reaches the ask's machines here.
 */

/** What a seam lends the following of its store. */
export interface FollowerOptions {
  store: AskStore
  seamId: string
  asks: Asks
  presenter: Presenter
  /** The leases changed, or the earliest deadline to sweep at did. */
  fleet(
    event:
      | { type: 'leases.changed' }
      | { type: 'feed.resync' }
      | { type: 'deadline.watch'; deadline: number | undefined },
  ): void
  /** Whether the seam was closed or dropped: it hears nothing more. */
  stopped(): boolean
}

/** A seam's part in following its store. */
export interface Follower {
  /** Other seams' pending asks as `pending()` lists them; shown where `shown` says. */
  pending(shown: (askId: string) => boolean): PendingAsk[]
  /** Starts following the store's feed. */
  start(): void
  /** Stops following it and forgets other seams' asks (the seam closed). */
  stop(): void
  /**
   * Another seam's ask shown here ended with `outcome` in the store (its
   * presentation here committed it, or heard it committed): as the feed's
   * word that it settled, which may come later. A caller here following it
   * under its key hears now, and a read begun before does not bring it back.
   */
  settledHere(askId: string, outcome: AskOutcome): void
  /**
   * Rereads the store's pending asks, and ends here what the store holds
   * settled or no longer holds. Rejects, once it has done what it could,
   * when a read failed: the fleet tries again at its next beat.
   */
  resync(): Promise<void>
  /**
   * Reads these asks from the store now, as the feed will bring them: another
   * seam's pending ask is shown, a settled one's outcome reaches its
   * machines here. Resolves once each read is done; a read that fails is
   * left to the feed.
   */
  catchUp(askIds: readonly string[]): Promise<void>
  /** Shows every known pending ask of another seam (a provider registered). */
  showAll(): void
  /**
   * Watches again the earliest deadline among other seams' asks that falls
   * after `sweptAt`, when a sweep that just ran began: an ask overdue then is
   * ended in the store even while this seam has not heard so (its feed
   * lags, or is down), and sweeping for it again would never stop.
   */
  watchDeadlines(sweptAt: number): void
}

/** Creates a seam's {@link Follower}. */
export function createFollower(options: FollowerOptions): Follower {
  const { store, seamId, asks, presenter } = options
  const foreign = new Map<string, AskRecord>()
  const reads = createStoreReads()

  /** Another seam's pending ask: it is listed here and shown, unless heard settled since `stale` was read. */
  const note = (record: AskRecord, stale?: ReadonlySet<string>) => {
    // This seam's own asks are presented by their own machines.
    if (record.state !== 'pending' || record.ownerSeamId === seamId) return
    if (stale?.has(record.askId) === true) return
    foreign.set(record.askId, record)
    if (record.deadline !== undefined) {
      options.fleet({ type: 'deadline.watch', deadline: record.deadline })
    }
    presenter.show(record)
  }

  /** The ask ended: a caller waiting on it here gets `outcome`, and its presentation here is told `presented`. */
  const settled = (askId: string, outcome: AskOutcome, presented = outcome) => {
    reads.settled(askId)
    if (foreign.delete(askId) && foreign.size === 0) {
      options.fleet({ type: 'deadline.watch', deadline: undefined })
    }
    presenter.settled(askId, presented)
    asks.tellAsk(askId, { type: 'ask.settled', outcome })
  }

  const onChange = (change: StoreChange) => {
    if (options.stopped()) return
    if (change.type === 'ask.admitted') note(change.record)
    else if (change.type === 'ask.settled') {
      if (change.record.outcome !== undefined) settled(change.record.askId, change.record.outcome)
    } else if (change.type === 'leases.changed') options.fleet({ type: 'leases.changed' })
    else options.fleet({ type: 'feed.resync' })
  }

  const resync = async () => {
    // Only an ask of this seam the store held before the read can be missing from it, not one admitted meanwhile.
    const own = asks.stored()
    const list = await reads.read(() => store.pending())
    if (options.stopped()) return
    const seen = new Set<string>()
    for (const record of list.value) {
      seen.add(record.askId)
      note(record, list.settledMeanwhile)
    }
    const missing = [...foreign.keys(), ...own]
    const failures: unknown[] = []
    for (const askId of missing.filter((id) => !seen.has(id))) {
      let record: AskRecord | undefined
      try {
        record = await store.get(askId)
      } catch (error: unknown) {
        failures.push(error) // A failed read says nothing of the ask: it is read at the next try.
        continue
      }
      if (record?.outcome !== undefined) settled(askId, record.outcome)
      else if (record === undefined) gone(askId)
    }
    if (failures.length > 0) throw failures[0]
  }

  /**
   * An ask the store no longer holds: settled and purged before this seam
   * heard how it ended. Its question comes down, and a caller waiting on it
   * here gets `STORE_FAILED`, since nobody can learn its outcome any more.
   */
  const gone = (askId: string) => {
    const lost = storeFailedOutcome()
    lost.error.message = `ask ${askId} is no longer in the store`
    settled(askId, lost, settledElsewhereOutcome())
  }

  const catchUp = async (askIds: readonly string[]) => {
    await Promise.all(
      askIds.map(async (askId) => {
        let found: TrackedRead<AskRecord | undefined>
        try {
          found = await reads.read(() => store.get(askId))
        } catch {
          return // A failed read says nothing of the ask: the feed still brings what changed.
        }
        const record = found.value
        if (record === undefined || options.stopped()) return
        if (record.outcome !== undefined) settled(askId, record.outcome)
        else note(record, found.settledMeanwhile)
      }),
    )
  }

  let unwatch: (() => void) | undefined
  return {
    pending(shown) {
      return [...foreign.values()].map((record) => listed(record, shown(record.askId)))
    },
    start() {
      unwatch = store.watch(onChange)
    },
    stop() {
      unwatch?.()
      foreign.clear()
    },
    settledHere: (askId, outcome) => settled(askId, outcome),
    resync,
    catchUp,
    showAll() {
      for (const record of [...foreign.values()]) presenter.show(record)
    },
    watchDeadlines(sweptAt) {
      let next: number | undefined
      for (const { deadline } of foreign.values()) {
        if (
          deadline !== undefined &&
          deadline > sweptAt &&
          (next === undefined || deadline < next)
        ) {
          next = deadline
        }
      }
      options.fleet({ type: 'deadline.watch', deadline: next })
    },
  }
}

/** How `pending()` lists an ask, whichever seam runs it: the fields it has, and whether it is shown. */
export function listed(
  ask: Pick<PendingAsk, 'askId' | 'questions' | 'startedAt'> & {
    agentId?: string | undefined
    deadline?: number | undefined
  },
  shown: boolean,
): PendingAsk {
  const entry: PendingAsk = {
    askId: ask.askId,
    questions: ask.questions,
    state: shown ? 'presenting' : 'waiting-for-provider',
    startedAt: ask.startedAt,
  }
  if (ask.agentId !== undefined) entry.agentId = ask.agentId
  if (ask.deadline !== undefined) entry.deadline = ask.deadline
  return entry
}
