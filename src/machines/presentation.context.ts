import {
  admits,
  canonicalJson,
  isApproval,
  readAnsweringResponder,
  validateAnswer,
  errorData,
  presentationEnding,
  UserQuestionError,
} from '../vocabulary/index.js'
import type {
  AskErrorData,
  AskOutcome,
  AskPolicy,
  AskRejection,
  AskUserQuestionItem,
  Responder,
} from '../vocabulary/index.js'
import { clampDelay } from './time.js'

/*
 * The data of presentationMachine (presentation.machine.ts): what a
 * presentation starts from, holds, hears and ends with, and the pure
 * functions its guards and actions compute them with, among them the ask's
 * policy (DESIGN §12).
 */

/** What one presentation shows. Data only: the seam keeps the provider and its signal beside the actor. */
export interface PresentationInput {
  askId: string
  /** Validated questions. */
  questions: AskUserQuestionItem[]
  /** When the ask was admitted, epoch milliseconds. */
  startedAt: number
  /** The ask's absolute deadline, epoch milliseconds. */
  deadline?: number | undefined
  /** When the presentation opens, epoch milliseconds: an ask already overdue is never presented. */
  openedAt: number
  /** Who may answer and how many must approve (DESIGN §12). */
  policy?: AskPolicy | undefined
}

/** A presentation's memory: data only, so a snapshot is plain JSON. */
export interface PresentationContext {
  askId: string
  questions: AskUserQuestionItem[]
  startedAt: number
  deadline: number | undefined
  openedAt: number
  policy: AskPolicy | undefined
  /**
   * What the provider settled with, offered to the store and not yet taken:
   * none once a vote is counted or the answer is refused while the ask goes on.
   */
  proposal: AskOutcome | undefined
  /** Who gave the proposal, as the provider named them. */
  responder: Responder | undefined
  /** Whether the proposal is an approval the store counts as a vote (DESIGN §12). */
  voting: boolean
  /** The approvals counted so far, as the store last said. */
  given: Responder[]
  /** Answers refused while the ask stayed pending: each pauses a little longer before the next showing. */
  refusals: number
  /** Commits of the proposal that failed so far. */
  attempts: number
  /** The outcome the store committed, once known (this provider's or another). */
  outcome: AskOutcome | undefined
  /** Whether the committed outcome is this provider's own write. */
  won: boolean
  /** Why the presentation comes down, when it does without a committed outcome. */
  ending: AskRejection | undefined
  /** The ask ends here for a local reason: a commit in flight finishes, no new one starts. */
  yielding: boolean
  /** The provider went while a write was in flight: an ask that goes on after it is taken down. */
  withdrawn: boolean
}

/**
 * What a presentation hears. `provider.*` from the provider it called;
 * `commit.*` and `vote.*` from the store it offered the provider's
 * settlement to; `votes.read` from the store as it opens;
 * `ask.settled` when the ask's outcome was committed by someone else;
 * `ask.ending` when the ask ends here for a local reason (the caller's abort,
 * the deadline, the seam closing); `provider.withdrawn` when the provider
 * goes away (a hand-over).
 */
export type PresentationEvent =
  | { type: 'provider.answered'; answer: unknown }
  | { type: 'provider.failed'; error: AskErrorData }
  | { type: 'commit.done'; outcome: AskOutcome; won: boolean }
  /** The write failed; `lasting` when trying again cannot help (a row that does not parse). */
  | { type: 'commit.failed'; lasting: boolean }
  /** The store counted the approval; the ask waits for more. */
  | { type: 'vote.counted'; given: Responder[] }
  /** The store had this responder's approval already. */
  | { type: 'vote.already'; given: Responder[] }
  /** The approvals the store counted before this presentation opened. */
  | { type: 'votes.read'; given: Responder[] }
  | { type: 'ask.settled'; outcome: AskOutcome }
  | { type: 'ask.ending'; error: AskRejection }
  | { type: 'provider.withdrawn'; error: AskRejection }

/**
 * How a presentation ended. `accepted`: the provider's settlement is the
 * ask's outcome. `refused`: another outcome was committed first. `takenDown`:
 * the ask ended for another reason before anything was committed here
 * (`ending` says why); `outcome` is absent then.
 */
export type PresentationOutput =
  | { verdict: 'accepted'; outcome: AskOutcome }
  | { verdict: 'refused'; outcome: AskOutcome }
  | { verdict: 'takenDown'; ending: AskRejection }

/**
 * What the provider is told of its own settlement (see
 * `ProviderRequest.settlement`). On a refusal that leaves the ask pending,
 * `by` is who gave the refused answer, for the ask's record.
 */
export type ProviderVerdict =
  | { status: 'accepted' }
  | { status: 'refused'; error: AskErrorData; by?: Responder }
  | { status: 'counted'; approvals: { required: number; given: Responder[] } }

/** The longest pause between two commits of one settlement. */
export const MAX_RETRY_DELAY_MS = 5_000
const FIRST_RETRY_DELAY_MS = 50

/**
 * The pause before the commit after `attempts` failed ones: doubling from
 * 50 ms up to {@link MAX_RETRY_DELAY_MS}, with up to a fifth more at random so
 * that presentations failing together do not retry in step.
 */
export function retryDelay(attempts: number): number {
  const base = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.min(attempts, 16))
  return clampDelay(base + Math.random() * base * 0.2)
}

/**
 * The proposal a provider's answer makes, and who gave it: the canonical
 * answer, or `BAD_ANSWER` when it (or its `by`) does not fit. The outcome
 * names its responder.
 */
export function answerProposal(
  questions: AskUserQuestionItem[],
  answer: unknown,
): { proposal: AskOutcome; responder: Responder | undefined } {
  try {
    const responder = readAnsweringResponder((answer as { by?: unknown } | null | undefined)?.by)
    const canonical = validateAnswer(questions, answer)
    return {
      proposal:
        responder === undefined
          ? { status: 'answered', answer: canonical }
          : { status: 'answered', answer: canonical, by: [responder] },
      responder,
    }
  } catch (error: unknown) {
    const data: AskErrorData =
      error instanceof UserQuestionError
        ? errorData(error)
        : { code: 'BAD_ANSWER', message: 'the answer could not be read' }
    return { proposal: { status: 'rejected', error: data }, responder: undefined }
  }
}

/** Whether the ask's policy refuses this responder's answer: not among `answerers`, or nameless where approvals are counted. */
export function refusesResponder(context: PresentationContext): boolean {
  const { policy, responder } = context
  if (policy === undefined) return false
  if (policy.approvals !== undefined && responder === undefined) return true
  return !admits(policy.answerers, responder)
}

/** Whether the proposal is an approval the store counts as one vote of several. */
export function isVote(context: PresentationContext): boolean {
  const { policy, proposal } = context
  return (
    policy?.approvals !== undefined &&
    proposal?.status === 'answered' &&
    isApproval(context.questions, proposal.answer)
  )
}

/** The approvals an ask that counts them holds now. */
export function approvalsOf(context: PresentationContext) {
  return { required: context.policy?.approvals as number, given: context.given }
}

export function verdictOf(context: PresentationContext): ProviderVerdict {
  const outcome = context.outcome as AskOutcome
  return outcome.status === 'rejected' && outcome.error.code === 'BAD_ANSWER'
    ? { status: 'refused', error: outcome.error }
    : { status: 'accepted' }
}

/**
 * What a presentation whose answer is not committed yet is told when its ask
 * ends: the deadline's timeout says the answer came too late to be kept, not
 * that nobody answered. Any other ending is told as it is.
 */
export function uncommittedEnding(ending: AskRejection): AskRejection {
  if (ending.error.code !== 'ASK_TIMEOUT') return ending
  return {
    status: 'rejected',
    error: {
      ...ending.error,
      message: 'the deadline passed before the answer given could be committed',
    },
  }
}

/**
 * What a presentation refused by another outcome tells its provider: an
 * answer of its own that was given but not committed hears that the deadline
 * came first (see {@link uncommittedEnding}), not that nobody answered.
 */
export function refusedEnding(context: PresentationContext): AskRejection {
  const ending = presentationEnding(context.outcome as AskOutcome)
  return context.proposal === undefined ? ending : uncommittedEnding(ending)
}

/**
 * Whether `outcome`, which the store committed, is this presentation's own
 * proposal although no write of it said it won: a write whose reply was lost
 * (a connection dropped after the commit, say) landed before it failed, and
 * the retry, or the store's feed, then finds the ask settled with it. Asked
 * only once a write of the proposal failed (a reply that came says whether it
 * won). Recognised by content: an equal outcome, or for an approval, the
 * approve answer with its responder among those who gave it.
 */
export function isOwnLostWrite(context: PresentationContext, outcome: AskOutcome): boolean {
  const { proposal, responder } = context
  if (proposal === undefined) return false
  if (!context.voting) return canonicalJson(outcome) === canonicalJson(proposal)
  return (
    outcome.status === 'answered' &&
    proposal.status === 'answered' &&
    canonicalJson(outcome.answer) === canonicalJson(proposal.answer) &&
    outcome.by?.some(({ id }) => id === responder?.id) === true
  )
}

/** Whether the outcome a write's reply names is this presentation's own: it won, or an earlier write of it landed. */
export function isOwnCommit(
  context: PresentationContext,
  committed: { outcome: AskOutcome; won: boolean },
): boolean {
  return committed.won || (context.attempts > 0 && isOwnLostWrite(context, committed.outcome))
}

/** The verdict on an answer refused while the ask stays pending. */
export function refusalOf(context: PresentationContext, error: AskErrorData): ProviderVerdict {
  return context.responder === undefined
    ? { status: 'refused', error }
    : { status: 'refused', error, by: context.responder }
}
