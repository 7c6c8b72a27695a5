import { assertEvent, assign, raise, setup } from 'xstate'
import {
  admits,
  alreadyVoted,
  forbiddenAnswer,
  isApproval,
  presentationEnding,
  readResponder,
  timeoutOutcome,
  validateAnswer,
  errorData,
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

/** What one presentation shows. Data only: the seam keeps the provider and its signal beside the actor. */
export interface PresentationInput {
  askId: string
  /** Validated questions. */
  questions: AskUserQuestionItem[]
  agentId?: string
  /** When the ask was admitted, epoch milliseconds. */
  startedAt: number
  /** The ask's absolute deadline, epoch milliseconds. */
  deadline?: number
  /** When the presentation opens, epoch milliseconds: an ask already overdue is never presented. */
  openedAt: number
  /** Who may answer and how many must approve (DESIGN §12). */
  policy?: AskPolicy
}

/** A presentation's memory: data only, so a snapshot is plain JSON. */
export interface PresentationContext {
  askId: string
  questions: AskUserQuestionItem[]
  agentId: string | undefined
  startedAt: number
  deadline: number | undefined
  openedAt: number
  policy: AskPolicy | undefined
  /** What the provider settled with, as offered to the store. */
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
 * `commit.*` from the store it offered the provider's settlement to;
 * `ask.settled` when the ask's outcome was committed by someone else;
 * `ask.ending` when the ask ends here for a local reason (the caller's abort,
 * the deadline, the seam closing); `provider.withdrawn` when the provider
 * goes away (a hand-over).
 */
export type PresentationEvent =
  | { type: 'provider.answered'; answer: unknown }
  | { type: 'provider.failed'; error: AskErrorData }
  | { type: 'commit.done'; outcome: AskOutcome; won: boolean }
  | { type: 'commit.failed' }
  /** The store counted the approval; the ask waits for more. */
  | { type: 'vote.counted'; given: Responder[] }
  /** The store had this responder's approval already. */
  | { type: 'vote.already'; given: Responder[] }
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
 * `ProviderRequest.settlement`): `by` is who gave it, for the ask's record.
 */
export type ProviderVerdict = (
  | { status: 'accepted' }
  | { status: 'refused'; error: AskErrorData }
  | { status: 'counted'; approvals: { required: number; given: Responder[] } }
) & { by?: Responder }

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
function answerProposal(
  questions: AskUserQuestionItem[],
  answer: unknown,
): { proposal: AskOutcome; responder: Responder | undefined } {
  try {
    const responder = readResponder((answer as { by?: unknown } | null | undefined)?.by)
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
function refusesResponder(context: PresentationContext): boolean {
  const { policy, responder } = context
  if (policy === undefined) return false
  if (policy.approvals !== undefined && responder === undefined) return true
  return !admits(policy.answerers, responder)
}

/** Whether the proposal is an approval the store counts as one vote of several. */
function isVote(context: PresentationContext): boolean {
  const { policy, proposal } = context
  return (
    policy?.approvals !== undefined &&
    proposal?.status === 'answered' &&
    isApproval(context.questions, proposal.answer)
  )
}

/** The approvals an ask that counts them holds now. */
function approvalsOf(context: PresentationContext) {
  return { required: context.policy?.approvals as number, given: context.given }
}

function verdictOf(context: PresentationContext): ProviderVerdict {
  const outcome = context.outcome as AskOutcome
  const by = context.responder === undefined ? {} : { by: context.responder }
  return outcome.status === 'rejected' && outcome.error.code === 'BAD_ANSWER'
    ? { status: 'refused', error: outcome.error, ...by }
    : { status: 'accepted', ...by }
}

/** The verdict on an answer refused while the ask stays pending. */
function refusalOf(context: PresentationContext, error: AskErrorData): ProviderVerdict {
  return context.responder === undefined
    ? { status: 'refused', error }
    : { status: 'refused', error, by: context.responder }
}

/**
 * One ask shown to this seam's provider, its own or another seam's (DESIGN
 * §6, §12): presenting, then committing the provider's answer or refusal
 * (retried with backoff while it fails, so the human's answer is kept, not
 * dropped), then accepted, refused (another outcome was committed first: the
 * signal aborts with `settled-elsewhere` even when the provider had already
 * answered), or taken down (the ask ended for another reason, or was overdue
 * when it opened).
 *
 * The ask's policy is decided here: an answer from a responder the ask does
 * not admit is refused (`forbidden`) and the ask is presented again after a
 * pause; on an ask that counts approvals, an approval is a vote the store
 * keeps, and the ask is presented again with the new count until the last
 * one settles it; a second approval by one responder is refused
 * (`already-voted`); any other answer from an admitted responder settles it.
 *
 * The provider, its signal and the store live beside the actor: the seam
 * provides `callProvider`, `commitProposal`, `endPresentation` and
 * `tellSettlement`. A bare machine calls nothing and commits what it offers.
 */
export const presentationMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as PresentationContext,
    events: {} as PresentationEvent,
    input: {} as PresentationInput,
    output: {} as PresentationOutput,
  },
  guards: {
    isOverdue: ({ context }) =>
      context.deadline !== undefined && context.deadline <= context.openedAt,
    isOwnCommit: ({ event }) => {
      assertEvent(event, 'commit.done')
      return event.won
    },
    isSettledHere: ({ context }) => context.outcome !== undefined,
    isYielding: ({ context }) => context.yielding,
    /** The ask ends here, or its provider went: it is not presented again. */
    isLeaving: ({ context }) => context.yielding || context.withdrawn,
    refusesResponder: ({ context }) => refusesResponder(context),
  },
  delays: {
    retry: ({ context }) => retryDelay(context.attempts - 1),
    pause: ({ context }) => retryDelay(context.refusals - 1),
  },
  actions: {
    /** Effect: shows the ask to the provider; its settlement comes back as `provider.*`. */
    callProvider: () => undefined,
    /**
     * Effect: offers the proposal to the store (a vote when `voting`); what
     * it committed comes back as `commit.*`, what it counted as `vote.*`.
     */
    commitProposal: raise(({ context }) => ({
      type: 'commit.done' as const,
      outcome: context.proposal as AskOutcome,
      won: true,
    })),
    /** Effect: aborts the provider's signal with the error and tells it `refused`. */
    endPresentation: (_, _params: { error: AskRejection }) => undefined,
    /** Effect: tells the provider what became of its own settlement. */
    tellSettlement: (_, _params: ProviderVerdict) => undefined,
    proposeAnswer: assign(({ context, event }) => {
      assertEvent(event, 'provider.answered')
      const { proposal, responder } = answerProposal(context.questions, event.answer)
      return { proposal, responder, voting: false }
    }),
    proposeRefusal: assign(({ event }) => {
      assertEvent(event, 'provider.failed')
      return {
        proposal: { status: 'rejected' as const, error: event.error },
        responder: undefined,
        voting: false,
      }
    }),
    decideVote: assign(({ context }) => ({ voting: isVote(context) })),
    recordCommit: assign(({ event }) => {
      assertEvent(event, 'commit.done')
      return { outcome: event.outcome, won: event.won }
    }),
    recordFailedCommit: assign(({ context }) => ({ attempts: context.attempts + 1 })),
    recordVotes: assign(({ event }) => {
      assertEvent(event, ['vote.counted', 'vote.already'])
      return { given: event.given, attempts: 0 }
    }),
    recordRefusal: assign(({ context }) => ({ refusals: context.refusals + 1 })),
    recordSettlement: assign(({ event }) => {
      assertEvent(event, 'ask.settled')
      return { outcome: event.outcome }
    }),
    recordEnding: assign(({ event }) => {
      assertEvent(event, ['ask.ending', 'provider.withdrawn'])
      return { ending: event.error }
    }),
    recordWithdrawal: assign(({ context, event }) => {
      assertEvent(event, 'provider.withdrawn')
      return { withdrawn: true, ending: context.ending ?? event.error }
    }),
    recordYield: assign(({ event }) => {
      assertEvent(event, 'ask.ending')
      return { yielding: true, ending: event.error }
    }),
    recordOverdue: assign(({ context }) => ({
      ending: timeoutOutcome(context),
    })),
  },
}).createMachine({
  id: 'presentation',
  context: ({ input }) => ({
    askId: input.askId,
    questions: input.questions,
    agentId: input.agentId,
    startedAt: input.startedAt,
    deadline: input.deadline,
    openedAt: input.openedAt,
    policy: input.policy,
    proposal: undefined,
    responder: undefined,
    voting: false,
    given: [],
    refusals: 0,
    attempts: 0,
    outcome: undefined,
    won: false,
    ending: undefined,
    yielding: false,
    withdrawn: false,
  }),
  initial: 'opening',
  output: ({ context }) =>
    context.outcome === undefined
      ? { verdict: 'takenDown', ending: context.ending as AskRejection }
      : { verdict: context.won ? 'accepted' : 'refused', outcome: context.outcome },
  states: {
    opening: {
      always: [
        { guard: 'isOverdue', target: 'takenDown', actions: 'recordOverdue' },
        { target: 'presenting' },
      ],
    },
    presenting: {
      entry: 'callProvider',
      on: {
        'provider.answered': { target: 'deciding', actions: 'proposeAnswer' },
        'provider.failed': { target: 'committing', actions: 'proposeRefusal' },
        'ask.settled': { target: 'refused', actions: 'recordSettlement' },
        'ask.ending': { target: 'takenDown', actions: 'recordEnding' },
        'provider.withdrawn': { target: 'takenDown', actions: 'recordEnding' },
      },
    },
    // The ask's policy judges who answered (DESIGN §12).
    deciding: {
      always: [
        {
          guard: 'refusesResponder',
          target: 'pausing',
          actions: {
            type: 'tellSettlement',
            params: ({ context }) => refusalOf(context, forbiddenAnswer()),
          },
        },
        { target: 'committing', actions: 'decideVote' },
      ],
    },
    committing: {
      initial: 'writing',
      states: {
        writing: {
          entry: 'commitProposal',
          on: {
            'commit.done': [
              { guard: 'isOwnCommit', target: '#presentation.accepted', actions: 'recordCommit' },
              { target: '#presentation.refused', actions: 'recordCommit' },
            ],
            'commit.failed': [
              { guard: 'isSettledHere', target: '#presentation.refused' },
              { guard: 'isYielding', target: '#presentation.takenDown' },
              { target: 'waiting', actions: 'recordFailedCommit' },
            ],
            'vote.counted': [
              { guard: 'isLeaving', target: '#presentation.takenDown', actions: 'recordVotes' },
              {
                target: '#presentation.presenting',
                actions: [
                  'recordVotes',
                  {
                    type: 'tellSettlement',
                    params: ({ context }) => ({
                      status: 'counted' as const,
                      approvals: approvalsOf(context),
                      ...(context.responder === undefined ? {} : { by: context.responder }),
                    }),
                  },
                ],
              },
            ],
            'vote.already': [
              { guard: 'isLeaving', target: '#presentation.takenDown', actions: 'recordVotes' },
              {
                target: '#presentation.pausing',
                actions: [
                  'recordVotes',
                  {
                    type: 'tellSettlement',
                    params: ({ context }) => refusalOf(context, alreadyVoted()),
                  },
                ],
              },
            ],
            // The write in flight decides: it says whether it won.
            'ask.settled': { actions: 'recordSettlement' },
            'ask.ending': { actions: 'recordYield' },
            'provider.withdrawn': { actions: 'recordWithdrawal' },
          },
        },
        waiting: {
          after: { retry: 'writing' },
          on: {
            'ask.settled': { target: '#presentation.refused', actions: 'recordSettlement' },
            'ask.ending': { target: '#presentation.takenDown', actions: 'recordEnding' },
            // The human's answer is still committed; only what comes after it needs the provider.
            'provider.withdrawn': { actions: 'recordWithdrawal' },
          },
        },
      },
    },
    // An answer was refused and the ask stays pending: it is shown again after a pause.
    pausing: {
      entry: 'recordRefusal',
      after: { pause: 'presenting' },
      on: {
        'ask.settled': { target: 'refused', actions: 'recordSettlement' },
        'ask.ending': { target: 'takenDown', actions: 'recordEnding' },
        'provider.withdrawn': { target: 'takenDown', actions: 'recordEnding' },
      },
    },
    accepted: {
      type: 'final',
      entry: { type: 'tellSettlement', params: ({ context }) => verdictOf(context) },
    },
    refused: {
      type: 'final',
      entry: {
        type: 'endPresentation',
        params: ({ context }) => ({ error: presentationEnding(context.outcome as AskOutcome) }),
      },
    },
    takenDown: {
      type: 'final',
      entry: {
        type: 'endPresentation',
        params: ({ context }) => ({ error: context.ending as AskRejection }),
      },
    },
  },
})
