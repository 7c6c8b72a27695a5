import type { Fleet } from './fleet.js'
import { abortPresentation, settledElsewhereError } from './presentation.js'
import type { Presentation } from './presentation.js'
import { attempt, storeFailed } from './seam-parts.js'
import type { Entry } from './seam-parts.js'
import type { CallerSettling } from './settling.js'
import { restoreError } from './store.js'
import type { AskRecord, AskStore, StoreChange } from './store.js'

/*
 * How a seam follows its store (DESIGN §10): it hears of asks admitted and
 * settled anywhere, and of leases changing, through the store's change feed,
 * and rereads the pending asks when the feed may have missed some. Other
 * seams' pending asks go to its provider; a settlement committed anywhere
 * ends this seam's presentation and reaches its callers.
 */

/** What a seam lends the following of its store. */
export interface StoreFollowerOptions {
  store: AskStore
  seamId: string
  /** The seam's asks that callers wait on, by `askId`. */
  entries: Map<string, Entry>
  /** Pending asks of the store the seam runs no machine for, by `askId`. */
  foreign: Map<string, AskRecord>
  /** The seam's map of what its provider shows, by `askId`. */
  presentations: Map<string, Presentation>
  fleet: Pick<Fleet, 'watchDeadline' | 'refresh'>
  /** Shows another seam's ask to the provider, unless it is shown already or there is none. */
  openForeign(record: AskRecord): void
  deliver: CallerSettling['deliver']
  deliverStored: CallerSettling['deliverStored']
  /** Whether the seam was closed or dropped: it hears nothing more. */
  stopped(): boolean
}

/** A seam's part in following its store; made once per seam. */
export interface StoreFollower {
  /** Takes note of a pending ask of the store, and presents it if the seam runs no machine for it. */
  noteForeign(record: AskRecord): void
  /** Hears one change from the store's feed. */
  onChange(change: StoreChange): void
  /** Rereads the store's pending asks, and ends here what the store holds settled or no longer holds. */
  resync(): Promise<void>
}

/** Creates a seam's {@link StoreFollower}. */
export function createStoreFollower(options: StoreFollowerOptions): StoreFollower {
  const { store, seamId, entries, foreign, presentations, fleet, openForeign } = options
  const { deliver, deliverStored, stopped } = options

  /** A pending ask of the store this seam runs no machine for. */
  const noteForeign = (record: AskRecord) => {
    if (record.state !== 'pending' || entries.get(record.askId)?.actor !== undefined) return
    if (record.ownerSeamId === seamId && entries.get(record.askId)?.admitting === true) return
    foreign.set(record.askId, record)
    if (record.deadline !== undefined) fleet.watchDeadline(record.deadline)
    openForeign(record)
  }

  const settledInStore = (record: AskRecord) => {
    const outcome = record.outcome
    if (outcome === undefined) return
    if (foreign.delete(record.askId) && foreign.size === 0) fleet.watchDeadline(undefined)
    const entry = entries.get(record.askId)
    const actor = entry?.actor
    if (actor !== undefined) {
      // A commit in flight reads the committed outcome itself, and keeps its cause.
      if (actor.getSnapshot().status === 'active' && !actor.getSnapshot().matches('committing')) {
        actor.send({ type: 'ask.settled', outcome })
      }
      return
    }
    const presentation = presentations.get(record.askId)
    if (presentation !== undefined && !presentation.providerSettled) {
      presentations.delete(record.askId)
      abortPresentation(
        presentation,
        outcome.status === 'answered' ? settledElsewhereError() : restoreError(outcome.error),
      )
    }
    if (entry !== undefined && !entry.admitting && !entry.settling) deliverStored(entry, outcome)
  }

  const onChange = (change: StoreChange) => {
    if (stopped()) return
    if (change.type === 'ask.admitted') noteForeign(change.record)
    else if (change.type === 'ask.settled') settledInStore(change.record)
    else if (change.type === 'leases.changed') fleet.refresh()
    else void resync()
  }

  /** Rereads the store's pending asks: on start, and whenever the change feed may have missed some. */
  const resync = async () => {
    let list: AskRecord[]
    try {
      list = await attempt(() => store.pending())
    } catch {
      return
    }
    if (stopped()) return
    const seen = new Set<string>()
    for (const record of list) {
      seen.add(record.askId)
      noteForeign(record)
    }
    const missing = [...foreign.keys()].filter((askId) => !seen.has(askId))
    for (const entry of entries.values()) {
      if (entry.actor !== undefined && !seen.has(entry.askId)) missing.push(entry.askId)
    }
    for (const askId of missing) {
      let record: AskRecord | undefined
      try {
        record = await attempt(() => store.get(askId))
      } catch {
        continue // A failed read says nothing of the ask: the next resync asks again.
      }
      if (record?.state === 'settled') settledInStore(record)
      else if (record === undefined) goneFromStore(askId)
    }
  }

  /**
   * An ask the store no longer holds: settled and purged before this seam
   * heard how it ended. Its question comes down, and a caller waiting on it
   * here gets `STORE_FAILED`, since nobody can learn its outcome any more.
   */
  const goneFromStore = (askId: string) => {
    if (foreign.delete(askId) && foreign.size === 0) fleet.watchDeadline(undefined)
    const presentation = presentations.get(askId)
    if (presentation !== undefined) {
      presentations.delete(askId)
      abortPresentation(presentation, settledElsewhereError())
    }
    const entry = entries.get(askId)
    if (entry === undefined || entry.admitting || entry.settling) return
    // A commit in flight hears the same from the store, and fails the ask itself.
    if (entry.actor?.getSnapshot().matches('committing') === true) return
    deliver(entry, { error: storeFailed(new Error(`ask ${askId} is no longer in the store`)) })
    entry.actor?.stop()
  }

  return { noteForeign, onChange, resync }
}
