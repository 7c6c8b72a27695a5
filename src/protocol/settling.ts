import { callerAbortOutcome } from '../machines/index.js'
import type { AskContext, AskOutput } from '../machines/index.js'
import { createAbortFanout } from './abort-fanout.js'
import { abortPresentation, settledElsewhereError } from './presentation.js'
import type { Presentation } from './presentation.js'
import { attempt, storeFailed } from './seam-parts.js'
import type { AskEndings, Caller, Entry } from './seam-parts.js'
import { restoreError } from './store.js'
import type { AskStore, StoredOutcome } from './store.js'
import { UserQuestionError } from '../vocabulary/index.js'
import type { AskUserQuestionAnswer } from '../vocabulary/index.js'

/*
 * Settling a seam's callers: the one settle path, the error each caller gets
 * for an ask's outcome, what the provider is told when its presentation ends,
 * direct settlements of asks the seam runs no machine for, and callers whose
 * signal aborts.
 */

/** What a seam lends the settling of its callers. */
export interface CallerSettlingOptions {
  /** The seam's asks that callers wait on, by `askId`: a settled ask leaves it. */
  entries: Map<string, Entry>
  /** The seam's map of what its provider shows, by `askId`. */
  presentations: Map<string, Presentation>
  store: AskStore
  /** Keeps a store write in flight until `close()` has waited for it. */
  track<T>(promise: Promise<T>): Promise<T>
}

/** How a seam settles its callers; made once per seam. */
export interface CallerSettling {
  /** Settles `entry` once: every caller resolves with the answer or rejects with the error. */
  deliver(
    entry: Entry,
    result: { answer: AskUserQuestionAnswer } | { error: UserQuestionError },
  ): void
  /** Settles `entry` with an outcome read from the store. */
  deliverStored(entry: Entry, outcome: StoredOutcome): void
  /** The error a caller of `entry` gets for a stored rejection. */
  errorFor(entry: Entry, error: StoredOutcome & { status: 'rejected' }): UserQuestionError
  /** Writes `outcome` for an ask the seam runs no machine for, then settles `entry` with what the store holds. */
  settleDirect(entry: Entry, outcome: StoredOutcome): void
  /** What an ask's actor ending means for its callers and its presentation. */
  endings: AskEndings
  /** Watches the caller's signal, if it has one: an abort leaves the ask or aborts it. */
  watchCaller(caller: Caller): void
  /** Stops watching the caller's signal. */
  unwatchCaller(caller: Caller): void
}

/** Creates a seam's {@link CallerSettling}. */
export function createCallerSettling(options: CallerSettlingOptions): CallerSettling {
  const { entries, presentations, store, track } = options
  const callerSignals = createAbortFanout<Caller>((caller, reason) => callerAborted(caller, reason))

  /** The one settle path: removes the entry, lets go of every signal, then resolves or rejects. */
  const deliver = (
    entry: Entry,
    result: { answer: AskUserQuestionAnswer } | { error: UserQuestionError },
  ) => {
    if (entry.done) return
    entry.done = true
    if (entries.get(entry.askId) === entry) entries.delete(entry.askId)
    const callers = entry.callers
    entry.callers = []
    for (const caller of callers) unwatchCaller(caller)
    for (const caller of callers) {
      if ('answer' in result) caller.resolve(result.answer)
      else caller.reject(result.error)
    }
    entry.onDone?.()
  }

  const errorFor = (entry: Entry, error: StoredOutcome & { status: 'rejected' }) => {
    const data = error.error
    if (data.code === 'ASK_ABORTED' && data.details?.reason === 'caller-aborted') {
      return new UserQuestionError(data.message, data.code, {
        cause: entry.abortCause,
        details: data.details,
      })
    }
    return restoreError(data)
  }

  /** The error a caller gets for an outcome its own machine committed or learnt. */
  const callerError = (
    entry: Entry,
    context: AskContext,
    restored: UserQuestionError,
    presentation: Presentation | undefined,
  ) => {
    const outcome = context.outcome as StoredOutcome
    if (outcome.status !== 'rejected') return restored
    const data = outcome.error
    // The presentation was taken down with this very ending, whoever committed it
    // (a sweep ends an overdue ask as its own deadline does): the caller gets the same error.
    if (entry.localError?.code === data.code && entry.localError.message === data.message) {
      return entry.localError
    }
    if (!context.committedHere) return restored
    const fromProvider = presentation?.error
    if (context.proposal?.byProvider === true && fromProvider?.code === data.code) {
      return fromProvider
    }
    if (data.code === 'STORE_FAILED') {
      return new UserQuestionError(data.message, data.code, { cause: entry.storeCause })
    }
    return errorFor(entry, outcome)
  }

  const concludeOwn = (entry: Entry) => {
    const actor = entry.actor
    if (entry.done || actor === undefined) return
    const snapshot = actor.getSnapshot()
    const output = snapshot.output as AskOutput
    const context = snapshot.context
    const presentation = presentations.get(entry.askId)
    if (presentation !== undefined) presentations.delete(entry.askId)
    if (output.status === 'answered') {
      if (presentation !== undefined) endOwnPresentation(presentation, context, undefined)
      deliver(entry, { answer: output.answer })
      return
    }
    const error = callerError(entry, context, output.error, presentation)
    if (presentation !== undefined) endOwnPresentation(presentation, context, error)
    deliver(entry, { error })
  }

  const endOwnPresentation = (
    presentation: Presentation,
    context: AskContext,
    error: UserQuestionError | undefined,
  ) => {
    if (presentation.ended) return
    if (!presentation.providerSettled) {
      abortPresentation(presentation, error ?? settledElsewhereError())
      return
    }
    presentation.ended = true
    const own = context.committedHere && context.proposal?.byProvider === true
    if (own && error?.code !== 'BAD_ANSWER' && error?.code !== 'STORE_FAILED') {
      presentation.tell({ status: 'accepted' })
    } else
      presentation.tell({
        status: 'refused',
        error: own && error ? error : settledElsewhereError(),
      })
  }

  /** An internal fault in an ask's machine still settles the ask (issue 10). */
  const faultOwn = (entry: Entry, fault: unknown) => {
    if (entry.done) return
    const error = new UserQuestionError('the ask failed inside the seam', 'PROVIDER_FAILED', {
      cause: fault,
    })
    const presentation = presentations.get(entry.askId)
    if (presentation !== undefined) {
      presentations.delete(entry.askId)
      abortPresentation(presentation, error)
    }
    // Tracked, so close() waits for this write as for every other settlement.
    void track(
      attempt(() =>
        store.settle(
          entry.askId,
          { status: 'rejected', error: { code: error.code, message: error.message } },
          Date.now(),
        ),
      ),
    ).catch(() => undefined)
    deliver(entry, { error })
  }

  /** Settles an ask this seam runs no machine for (an attached one, or one still admitting). */
  const settleDirect = (entry: Entry, outcome: StoredOutcome) => {
    if (entry.settling || entry.done) return
    entry.settling = true
    void track(
      attempt(() => store.settle(entry.askId, outcome, Date.now())).then(
        (settled) => {
          entry.settling = false
          const record = settled?.record
          if (record?.outcome === undefined) {
            deliver(entry, {
              error: storeFailed(new Error(`ask ${entry.askId} is not in the store`)),
            })
            return
          }
          deliverStored(entry, record.outcome)
        },
        (error: unknown) => {
          entry.settling = false
          deliver(entry, { error: storeFailed(error) })
        },
      ),
    )
  }

  const deliverStored = (entry: Entry, outcome: StoredOutcome) => {
    if (outcome.status === 'answered') deliver(entry, { answer: outcome.answer })
    else deliver(entry, { error: errorFor(entry, outcome) })
  }

  const callerAborted = (caller: Caller, reason: unknown) => {
    const entry = caller.entry
    const index = entry.callers.indexOf(caller)
    if (entry.done || index === -1) return
    if (entry.callers.length > 1) {
      // Another caller of this seam still waits: this one leaves, the ask goes on.
      entry.callers.splice(index, 1)
      unwatchCaller(caller)
      const outcome = callerAbortOutcome()
      caller.reject(
        new UserQuestionError(outcome.error.message, outcome.error.code, {
          cause: reason,
          details: outcome.error.details ?? {},
        }),
      )
      return
    }
    entry.abortRequested = true
    entry.abortCause = reason
    if (entry.actor !== undefined) entry.actor.send({ type: 'ask.aborted', reason })
    else if (!entry.admitting) settleDirect(entry, callerAbortOutcome())
  }

  const unwatchCaller = (caller: Caller) => {
    if (caller.signal === undefined) return
    callerSignals.unwatch(caller.signal, caller)
    caller.signal = undefined
  }

  const watchCaller = (caller: Caller) => {
    if (caller.signal !== undefined) callerSignals.watch(caller.signal, caller)
  }

  const endings: AskEndings = { concluded: concludeOwn, faulted: faultOwn }

  return {
    deliver,
    deliverStored,
    errorFor,
    settleDirect,
    endings,
    watchCaller,
    unwatchCaller,
  }
}
