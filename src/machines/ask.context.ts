import { assertEvent, enqueueActions } from 'xstate'
import {
  differenceOf,
  endingOf,
  isHandOver,
  isReplayedOutcome,
  otherAskOutcome,
} from '../vocabulary/index.js'
import type {
  AskEnding,
  AskErrorData,
  AskOutcome,
  AskPolicy,
  AskRejection,
  AskTerms,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
} from '../vocabulary/index.js'
import type { PresentationInput, PresentationOutput } from './presentation.machine.js'
import { retryDelay } from './presentation.context.js'
import { MAX_DELAY_MS, clampDelay } from './time.js'

/*
 * The data of askMachine (ask.machine.ts): what an ask starts from, holds,
 * hears and ends with, and the pure functions its transitions compute them
 * with.
 */

/**
 * Which live value beside the ask explains its error (DESIGN §6: the machine
 * keeps data, the seam keeps the live `cause`): the caller's abort reason,
 * the provider's own error, or the store's.
 */
export type AskCause = 'caller' | 'provider' | 'store'

/** What the caller gets, as data: the seam adapter resolves or rejects with exactly this. */
export type AskOutput =
  | { status: 'answered'; answer: AskUserQuestionAnswer }
  | { status: 'rejected'; error: AskErrorData; cause?: AskCause }

/** What one ask starts from. Times are epoch milliseconds, so an ask restored from its store keeps them. */
export interface AskInput {
  askId: string
  /** The caller's own id for the ask (DESIGN §10). */
  key?: string | undefined
  /** Validated questions (see `validateRequest`). */
  questions: AskUserQuestionItem[]
  agentId?: string | undefined
  startedAt: number
  /** Absolute deadline; absent waits indefinitely and arms no timer. */
  deadline?: number | undefined
  /** How long to wait for a first provider when none is active anywhere. 0: fail at once. */
  waitForProviderMs: number
  /** How long a disposed provider's asks wait for the next one. 0: end at once. */
  providerGraceMs: number
  /** Whether the store outlives the process: there a keyed ask waits for a human however long no UI is there. @default false */
  durable?: boolean
  /** Whether the seam running the ask has an active provider. @default false */
  providerHere?: boolean
  /** Whether a provider is active on another live seam sharing the store. @default false */
  providerElsewhere?: boolean
  /** Whether the seam has read the fleet's leases once, so it knows whether any provider is active. @default true */
  fleetKnown?: boolean
  /** Who may answer and how many must approve (DESIGN §12). */
  policy?: AskPolicy | undefined
}

/** An ask the store already held under the key, as the admission found it. */
export interface HeldAsk {
  askId: string
  questions: AskUserQuestionItem[]
  startedAt: number
  deadline?: number
  agentId?: string
  policy?: AskPolicy
  /** Its committed outcome; absent while it is pending. */
  outcome?: AskOutcome
}

/** What the store made of the admission. */
export type AdmissionResult = { status: 'admitted' } | { status: 'existing'; ask: HeldAsk }

/** A local ending offered for the ask: committed to the store, or (`commit: false`) the caller's alone. */
export interface AskProposal {
  outcome: AskRejection
  cause?: AskCause
  commit: boolean
  /** Written once, a failure not retried: the seam's closing, a failed admission's ending. */
  once?: true
}

/** Data only: `getPersistedSnapshot()` of an ask is plain JSON. */
export interface AskContext {
  askId: string
  key: string | undefined
  questions: AskUserQuestionItem[]
  agentId: string | undefined
  startedAt: number
  deadline: number | undefined
  waitForProviderMs: number
  providerGraceMs: number
  durable: boolean
  providerHere: boolean
  providerElsewhere: boolean
  fleetKnown: boolean
  policy: AskPolicy | undefined
  /** The local ending offered, once there is one: the first one stands. */
  proposal: AskProposal | undefined
  /** The outcome the caller gets: committed by the store, or a proposal that is not written. */
  outcome: AskOutcome | undefined
  cause: AskCause | undefined
  /** The outcome is the key's, settled before this ask began (DESIGN §10): replayed, not decided now. */
  replayed: boolean
  /** The writes of the proposal that failed so far. */
  commitAttempts: number
  /** While it follows a held ask: its own id and times, to ask anew with if that ask ends without the human. */
  own: OwnAsk | undefined
}

/** What an ask keeps of its own while it follows the ask the store held under its key. */
export type OwnAsk = Pick<AskContext, 'askId' | 'startedAt' | 'deadline' | 'agentId'>

/**
 * How many times a local ending's commit is tried again after a failure
 * that may pass (a lock, a lost connection), with the backoff of
 * `retryDelay`: about 11 s of pauses in all, besides the writes' own waits.
 * Past it the ask fails `STORE_FAILED`: the caller is not held for ever by a
 * store that stays down. A commit whose write cannot succeed (the ask's row
 * does not parse) or that the seam's closing proposed is not tried again.
 */
export const MAX_COMMIT_RETRIES = 8

/**
 * What an ask hears. `provider.*` from the seam's provider slot;
 * `providers.elsewhere` when the fleet sharing the store is read (and gains
 * or loses its last other provider); `ask.aborted` when the caller's signal
 * aborts; `seam.closed` from `close()`; `ask.settled` when an outcome
 * committed elsewhere reaches the seam; `admission.*` and `commit.*` from the
 * store the ask was offered to (`admit`, `offerCommit`).
 */
export type AskEvent =
  | { type: 'provider.available' }
  | { type: 'provider.disposed' }
  | { type: 'providers.elsewhere'; active: boolean }
  | { type: 'ask.aborted' }
  | { type: 'seam.closed' }
  /** Raised by the ask itself when its deadline timer fires; `final` when the deadline is reached (not a clamped wait). */
  | { type: 'ask.deadline'; final: boolean }
  | { type: 'ask.settled'; outcome: AskOutcome }
  | { type: 'admission.done'; result: AdmissionResult }
  | { type: 'admission.failed' }
  /** What the store committed for the proposal: `won` when it is the outcome offered. */
  | { type: 'commit.done'; outcome: AskOutcome; won: boolean }
  /** The write failed; `lasting` when trying again cannot help (a row that does not parse). */
  | { type: 'commit.failed'; lasting: boolean }
/** The one event of `AskEvent` named `TType`. */
export type AskEventOf<TType extends AskEvent['type']> = Extract<AskEvent, { type: TType }>
/** What an ask ends with: its outcome (none while it goes on) and who caused it. */
export type Decided = {
  outcome: AskOutcome | undefined
  cause?: AskCause | undefined
  replayed?: boolean
}

/**
 * The transition taken once `decided` names an outcome: it is recorded, and
 * `ending` routes it to its final state. Not taken while the ask goes on. A
 * replay adopts the held ask first: it ends under that ask's id.
 */
export function toEnding<TArgs>(decided: (args: TArgs) => Decided, first?: 'adoptHeldAsk') {
  const record = { type: 'recordOutcome' as const, params: decided }
  return {
    guard: { type: 'isDecided' as const, params: decided },
    target: '#ask.ending',
    actions: first === undefined ? record : [first, record],
  }
}

export const propose = (outcome: AskRejection, commit: boolean, cause?: AskCause) => ({
  proposal: cause === undefined ? { outcome, commit } : { outcome, commit, cause },
})

/**
 * A proposal written once, its failure not retried: the seam's closing
 * (`close()` does not wait on a failing store: its lease lapses, and the
 * fleet ends a keyless ask then), and a failed admission's ending (its caller
 * is not kept waiting on a failing store for a row most likely never written).
 */
export const proposeOnce = (outcome: AskRejection, commit: boolean, cause?: AskCause) => ({
  proposal: { ...propose(outcome, commit, cause).proposal, once: true as const },
})

/** The outcome the key's ask settled with before this one began (DESIGN §10): replayed, not decided now. */
export const replayedOutcome = ({ event }: { event: AskEventOf<'admission.done'> }): Decided => ({
  outcome: event.result.status === 'existing' ? event.result.ask.outcome : undefined,
  replayed: true,
})

/** The refusal of an ask whose key the store holds for another ask: other questions, or another policy. */
export function otherAskRefusal(result: AdmissionResult, asked: AskTerms): AskRejection {
  const held = heldAskFields(result)
  return otherAskOutcome(held.askId, differenceOf(held, asked) ?? 'questions')
}

/**
 * What an ask takes over from the one the store held under its key, keeping
 * its own id and times for when that ask ends without the human (DESIGN §10).
 */
export function adoptHeld(context: AskContext, result: AdmissionResult) {
  const { askId, startedAt, deadline, agentId } = context
  return { ...heldAskFields(result), own: { askId, startedAt, deadline, agentId } }
}

/** What an ask takes over from the one the store held under its key (the admission found it). */
export function heldAskFields(result: AdmissionResult) {
  const { ask } = result as Extract<AdmissionResult, { status: 'existing' }>
  return {
    askId: ask.askId,
    questions: ask.questions,
    startedAt: ask.startedAt,
    deadline: ask.deadline,
    agentId: ask.agentId,
    policy: ask.policy,
  }
}

/**
 * Arms the deadline's one timer; one further off than a timer holds fires
 * early, not final, and is re-armed. Type arguments spelled out: inferred,
 * they lose the delay's name.
 */
export const armDeadline = enqueueActions<
  AskContext,
  AskEvent,
  undefined,
  AskEvent,
  never,
  never,
  never,
  'deadline',
  never
>(({ context, enqueue }) => {
  if (context.deadline === undefined) return
  const final = context.deadline - Date.now() <= MAX_DELAY_MS
  enqueue.raise({ type: 'ask.deadline', final }, { delay: 'deadline', id: 'deadline' })
})

type Args = { context: AskContext; event: AskEvent }

/** The ask's named delays, each clamped to what a timer holds. */
export const askDelays = {
  deadline: ({ context }: Args) => clampDelay((context.deadline ?? 0) - Date.now()),
  providerWait: ({ context }: Args) => clampDelay(context.waitForProviderMs),
  providerGrace: ({ context }: Args) => clampDelay(context.providerGraceMs),
  commitRetry: ({ context }: Args) => retryDelay(context.commitAttempts - 1),
}

const waitsForHuman = (context: AskContext) => context.durable && context.key !== undefined

/** The ask's guards: every condition its transitions take, each in one place. */
export const askGuards = {
  hasProviderHere: ({ context }: Args) => context.providerHere,
  hasProviderElsewhere: ({ context }: Args) => context.providerElsewhere,
  /**
   * The presentation came down because its provider went (a hand-over), not
   * for an ending of the ask; the next provider may already be here.
   */
  isWithdrawn: ({ context, event }: Args) => {
    const output = (event as unknown as { output: PresentationOutput }).output
    return (
      !context.providerHere || (output.verdict === 'takenDown' && isHandOver(output.ending.error))
    )
  },
  mayWaitForProvider: ({ context }: Args) => context.waitForProviderMs > 0,
  hasProviderGrace: ({ context }: Args) => context.providerGraceMs > 0,
  /** Another provider may still show the ask: one elsewhere now, one within the grace, or a human's later. */
  isTakenOverLater: ({ context }: Args) =>
    context.providerElsewhere || context.providerGraceMs > 0 || waitsForHuman(context),
  /** A keyed ask on a durable store is a question left for a human (DESIGN §10). */
  waitsForHuman: ({ context }: Args) => waitsForHuman(context),
  isFleetUnknown: ({ context }: Args) => !context.fleetKnown && !context.providerHere,
  /** A keyless ask nobody anywhere could take fails before anything is written (DESIGN §3). */
  isRefusedForNoProvider: ({ context }: Args) =>
    context.key === undefined &&
    context.waitForProviderMs === 0 &&
    context.fleetKnown &&
    !context.providerHere &&
    !context.providerElsewhere,
  /** A held ask followed from a store nothing outlives needs a UI now, as a new one would. */
  isFollowedWithNoProvider: ({ context }: Args) =>
    !context.durable &&
    context.waitForProviderMs === 0 &&
    !context.providerHere &&
    !context.providerElsewhere,
  isFleetProviderGone: ({ event }: Args) => {
    assertEvent(event, 'providers.elsewhere')
    return !event.active
  },
  isDeadlineReached: ({ event }: Args) => {
    assertEvent(event, 'ask.deadline')
    return event.final
  },
  hasNoProposal: ({ context }: Args) => context.proposal === undefined,
  /** The deadline is reached and no other local ending came first. */
  isFirstEndingByDeadline: ({ context, event }: Args) => {
    assertEvent(event, 'ask.deadline')
    return event.final && context.proposal === undefined
  },
  hasProposal: ({ context }: Args) => context.proposal !== undefined,
  /** The proposal's write failed for a reason that may pass, it has tries left, and it is not written once ({@link proposeOnce}). */
  mayRetryCommit: ({ context, event }: Args) => {
    assertEvent(event, 'commit.failed')
    return (
      !event.lasting &&
      context.commitAttempts < MAX_COMMIT_RETRIES &&
      context.proposal?.once !== true
    )
  },
  isCommittedProposal: ({ context }: Args) => context.proposal?.commit === true,
  isAdmitted: ({ event }: Args) => {
    assertEvent(event, 'admission.done')
    return event.result.status === 'admitted'
  },
  holdsOtherAsk: ({ context, event }: Args) => {
    assertEvent(event, 'admission.done')
    const { result } = event
    return result.status === 'existing' && differenceOf(result.ask, context) !== undefined
  },
  isDecided: (_: unknown, decided: Decided) => decided.outcome !== undefined,
  /**
   * The followed ask ended in a way that says nothing about the human (its
   * own caller gave up, say): an ending this ask's callers did not cause, and
   * one the key gives up (DESIGN §10), so they ask anew.
   */
  isEndedWithoutHuman: ({ event }: Args) => {
    assertEvent(event, 'ask.settled')
    return !isReplayedOutcome(event.outcome)
  },
  endsIn: ({ context }: Args, params: { ending: AskEnding }) =>
    context.outcome !== undefined && endingOf(context.outcome) === params.ending,
}

export function presentationInput(context: AskContext): PresentationInput {
  return {
    askId: context.askId,
    questions: context.questions,
    startedAt: context.startedAt,
    deadline: context.deadline,
    openedAt: Date.now(),
    policy: context.policy,
  }
}

/** What the caller of an ended ask gets: its outcome without who answered (`history` has that), and the cause. */
export function outputOf(context: AskContext): AskOutput {
  const outcome = context.outcome as AskOutcome
  if (outcome.status === 'answered') return { status: 'answered', answer: outcome.answer }
  return context.cause === undefined
    ? { status: 'rejected', error: outcome.error }
    : { status: 'rejected', error: outcome.error, cause: context.cause }
}

export function presentationDecided(output: PresentationOutput): Decided {
  if (output.verdict === 'takenDown') return { outcome: undefined }
  return output.verdict === 'accepted'
    ? { outcome: output.outcome, cause: 'provider' }
    : { outcome: output.outcome }
}

/** What a new ask's machine starts from: its input, and a default for each part it leaves out. */
export function initialContext(input: AskInput): AskContext {
  return {
    askId: input.askId,
    key: input.key,
    questions: input.questions,
    agentId: input.agentId,
    startedAt: input.startedAt,
    deadline: input.deadline,
    waitForProviderMs: input.waitForProviderMs,
    providerGraceMs: input.providerGraceMs,
    durable: input.durable ?? false,
    providerHere: input.providerHere ?? false,
    providerElsewhere: input.providerElsewhere ?? false,
    fleetKnown: input.fleetKnown ?? true,
    policy: input.policy,
    proposal: undefined,
    outcome: undefined,
    cause: undefined,
    replayed: false,
    commitAttempts: 0,
    own: undefined,
  }
}
