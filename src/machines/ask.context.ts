import { enqueueActions } from 'xstate'
import {
  canonicalJson,
  differenceOf,
  otherAskOutcome,
  storeFailedOutcome,
} from '../vocabulary/index.js'
import type {
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
  /**
   * Written once, a failure not retried: the seam's closing, a failed
   * admission's ending, any ending proposed before the seam closed.
   */
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
/**
 * An ask that ended `STORE_FAILED` with its ending not written (the write
 * failed, and was not, or no longer, tried again): the store may still hold
 * it pending. The seam's fleet writes `outcome`, what the caller got, later
 * (`fleetMachine`), so that no row is left pending with nobody waiting on it.
 */
export interface UnwrittenEnding {
  askId: string
  outcome: AskOutcome
}
/** What a bare ask machine emits where the seam provides `leaveUnwritten`. */
export type AskEmitted = { type: 'ending.unwritten' } & UnwrittenEnding
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

/** What the context keeps of the outcome decided: a replay is marked as one. */
export const recorded = ({ outcome, cause, replayed = false }: Decided) => ({
  outcome,
  cause,
  replayed,
})

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

/** The proposal as it stands, written once: the seam closed before it was written. */
export const writtenOnce = ({ context }: { context: AskContext }) => ({
  proposal: { ...(context.proposal as AskProposal), once: true as const },
})

/** The outcome the store committed for the proposal: the proposal's cause goes with it when it won. */
export const committedOutcome = ({ context, event }: ArgsOf<'commit.done'>): Decided => ({
  outcome: event.outcome,
  cause: event.won ? context.proposal?.cause : undefined,
})

/** The outcome the store holds, heard from its feed. */
export const settledOutcome = ({ event }: { event: AskEventOf<'ask.settled'> }): Decided => ({
  outcome: event.outcome,
})

/**
 * The outcome the store holds, heard from its feed while the ask's ending is
 * written (before the write's reply, or in place of one that was lost): the
 * ask's own proposal keeps its cause.
 */
export const settledWhileCommitting = ({ context, event }: ArgsOf<'ask.settled'>): Decided => ({
  outcome: event.outcome,
  cause:
    canonicalJson(event.outcome) === canonicalJson(context.proposal?.outcome)
      ? context.proposal?.cause
      : undefined,
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

/**
 * The ending's write failed for good: its caller gets STORE_FAILED, and the
 * seam is told, to write that ending later (`leaveUnwritten`).
 */
export const failUnwritten = enqueueActions<
  AskContext,
  AskEvent,
  undefined,
  AskEvent,
  never,
  { type: 'leaveUnwritten'; params: unknown },
  never,
  never,
  never
>(({ enqueue }) => {
  enqueue.assign({ outcome: storeFailedOutcome(), cause: 'store' })
  enqueue('leaveUnwritten')
})

/** What the ask tells its seam of an ending left unwritten (see {@link AskEmitted}). */
export const unwrittenEnding = ({ context }: { context: AskContext }): AskEmitted => ({
  type: 'ending.unwritten',
  askId: context.askId,
  outcome: context.outcome as AskOutcome,
})

/** What a guard or delay of the ask is handed. */
export type Args = { context: AskContext; event: AskEvent }
/** What a transition function of the ask is handed when it reads one event, `TType`. */
export type ArgsOf<TType extends AskEvent['type']> = {
  context: AskContext
  event: AskEventOf<TType>
}

/** The ask's named delays, each clamped to what a timer holds. */
export const askDelays = {
  deadline: ({ context }: Args) => clampDelay((context.deadline ?? 0) - Date.now()),
  providerWait: ({ context }: Args) => clampDelay(context.waitForProviderMs),
  providerGrace: ({ context }: Args) => clampDelay(context.providerGraceMs),
  commitRetry: ({ context }: Args) => retryDelay(context.commitAttempts - 1),
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
