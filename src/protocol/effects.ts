import type { AnyActorRef } from 'xstate'
import { CorruptRowError, readSettlement, readVote } from './store/rows.js'
import type { AskStore, NewAskRecord, NewVote } from './store/types.js'
import type { PresentationContext, PresentationEvent } from '../machines/index.js'
import type { AskContext } from '../machines/index.js'
import type { AskOutcome, Responder, TraceContext } from '../vocabulary/index.js'

/*
 * How a machine's effect reaches a store or a provider and back: the work
 * runs beside the actor, and its result returns to the actor as an event,
 * or is dropped if the actor has stopped by then.
 */

/** The part of an actor an effect reports to. */
export interface Reportable<TEvent> {
  getSnapshot(): { status: string }
  send(event: TEvent): void
}

/**
 * Waits for `pending` (the promise of an async effect) and tells `self` how it
 * went, while it still runs. `done` and `failed` run only then: a result that
 * comes after its actor stopped leaves no trace.
 */
export function report<TResult, TEvent>(
  self: Reportable<TEvent>,
  pending: PromiseLike<TResult>,
  done: (result: TResult) => TEvent,
  failed: (error: unknown) => TEvent,
): void {
  const tell = (event: () => TEvent) => {
    if (self.getSnapshot().status === 'active') self.send(event())
  }
  Promise.resolve(pending).then(
    (result) => tell(() => done(result)),
    (error: unknown) => tell(() => failed(error)),
  )
}

/**
 * Resolves once `actor` has stopped, however it stopped; at once if it already
 * has. XState's `toPromise` rejects on an error and never settles for an actor
 * stopped by hand, and a seam's close waits on both kinds alike.
 */
export function ended(actor: AnyActorRef): Promise<void> {
  return new Promise<void>((resolve) => {
    actor.subscribe({ complete: resolve, error: () => resolve() })
    if (actor.getSnapshot().status !== 'active') resolve()
  })
}

/**
 * What a machine hears of a write that failed: `lasting` when trying it
 * again cannot help, because the store's row of the ask does not parse (a
 * lock, a lost connection or a closed pool may pass).
 */
export function commitFailed(error: unknown): { type: 'commit.failed'; lasting: boolean } {
  return { type: 'commit.failed', lasting: error instanceof CorruptRowError }
}

/**
 * Offers `outcome` to the store's one conditional write, once `recorded` (the
 * ask's record writes under way) has settled, so a caller that hears how the
 * ask ended reads its record whole and in order. Resolves with what it
 * committed, and whether it is this write.
 */
export async function commitOutcome(
  store: AskStore,
  askId: string,
  outcome: AskOutcome,
  recorded: Promise<void>,
): Promise<{ outcome: AskOutcome; won: boolean }> {
  await recorded
  const settled = readSettlement(askId, await store.settle(askId, outcome, Date.now()))
  return { outcome: settled.record.outcome as AskOutcome, won: settled.won }
}

/**
 * Offers a presentation's proposal to the store, once `recorded` has settled
 * (as {@link commitOutcome} does): its conditional vote when the machine
 * counts the answer as an approval, else its conditional write. Resolves
 * with what the presentation hears of it.
 */
export async function commitPresentation(
  store: AskStore,
  context: PresentationContext,
  recorded: Promise<void>,
): Promise<PresentationEvent> {
  const outcome = context.proposal as AskOutcome
  if (!context.voting) {
    return {
      type: 'commit.done',
      ...(await commitOutcome(store, context.askId, outcome, recorded)),
    }
  }
  await recorded
  return commitVote(store, context.askId, {
    by: context.responder as Responder,
    at: Date.now(),
    required: context.policy?.approvals as number,
    outcome,
  })
}

/**
 * Offers an approval to the store's conditional vote (DESIGN §12); resolves
 * with what the presentation hears of it: counted, counted before, or the
 * outcome the store holds now (this vote's when it completed the count).
 */
export async function commitVote(
  store: AskStore,
  askId: string,
  vote: NewVote,
): Promise<PresentationEvent> {
  const result = readVote(askId, await store.vote(askId, vote))
  switch (result.status) {
    case 'counted':
      return { type: 'vote.counted', given: result.given }
    case 'already-voted':
      return { type: 'vote.already', given: result.given }
    default:
      return { type: 'commit.done', outcome: result.record.outcome as AskOutcome, won: result.won }
  }
}

/**
 * The approvals the store counted on an ask so far (DESIGN §12): what a
 * presentation opening on it shows. A store that throws, even at once, rejects.
 */
export async function readVotes(store: AskStore, askId: string): Promise<Responder[]> {
  return store.votes(askId)
}

/**
 * The row an ask's admission writes: what its machine holds, the seam that
 * owns it, and the trace context its telemetry kept with it.
 */
export function newAskRecord(
  context: AskContext,
  ownerSeamId: string,
  traceContext?: TraceContext,
): NewAskRecord {
  const record: NewAskRecord = {
    askId: context.askId,
    questions: context.questions,
    ownerSeamId,
    startedAt: context.startedAt,
  }
  if (context.key !== undefined) record.key = context.key
  if (context.agentId !== undefined) record.agentId = context.agentId
  if (context.deadline !== undefined) record.deadline = context.deadline
  if (traceContext !== undefined) record.traceContext = traceContext
  if (context.policy !== undefined) record.policy = context.policy
  return record
}
