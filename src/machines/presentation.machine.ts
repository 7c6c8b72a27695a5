import { assertEvent, assign, raise, setup } from 'xstate'
import {
  alreadyVoted,
  forbiddenAnswer,
  storeFailedOutcome,
  timeoutOutcome,
} from '../vocabulary/index.js'
import type { AskOutcome, AskRejection } from '../vocabulary/index.js'
import {
  answerProposal,
  approvalsOf,
  isOwnCommit,
  isOwnLostWrite,
  isVote,
  refusalOf,
  refusedEnding,
  refusesResponder,
  retryDelay,
  uncommittedEnding,
  verdictOf,
} from './presentation.context.js'
import type {
  PresentationContext,
  PresentationEvent,
  PresentationInput,
  PresentationOutput,
  ProviderVerdict,
} from './presentation.context.js'

export { MAX_RETRY_DELAY_MS, retryDelay } from './presentation.context.js'
export type {
  PresentationContext,
  PresentationEvent,
  PresentationInput,
  PresentationOutput,
  ProviderVerdict,
} from './presentation.context.js'

/** Tells the provider its approval was counted, with the count the store gave. */
const tellCounted = {
  type: 'tellSettlement',
  params: ({ context }: { context: PresentationContext }): ProviderVerdict => ({
    status: 'counted',
    approvals: approvalsOf(context),
  }),
} as const

/**
 * A state's transitions, and how a presentation with nothing in flight comes
 * down: refused when another outcome was committed, else taken down. Called
 * as `/* @__PURE__ *\/`, so that a bundler still drops an unused machine.
 */
function orComesDown<T extends object>(on: T) {
  return {
    ...on,
    'ask.settled': { target: 'refused', actions: 'recordSettlement' },
    'ask.ending': { target: 'takenDown', actions: 'recordEnding' },
    'provider.withdrawn': { target: 'takenDown', actions: 'recordEnding' },
  } as const
}

/**
 * One ask shown to this seam's provider, its own or another seam's (DESIGN
 * §6, §12): presenting, then committing the provider's answer or refusal
 * (retried with backoff while it fails, so the human's answer is kept, not
 * dropped; a write that failed after it landed is known by what the store
 * holds), then accepted, refused (another outcome was committed first: the
 * signal aborts with `settled-elsewhere` even when the provider had already
 * answered), or taken down (the ask ended for another reason, or was overdue
 * when it opened).
 *
 * The ask's policy is decided here: an answer from a responder the ask does
 * not admit is refused (`forbidden`) and the ask is presented again after a
 * pause; on an ask that counts approvals, the presentation opens with the
 * count the store holds (`counting`), an approval is a vote the store keeps,
 * and the ask is presented again with each new count until the last one
 * settles it; a second approval by one responder is refused
 * (`already-voted`); any other answer from an admitted responder settles it.
 *
 * The provider, its signal and the store live beside the actor: the seam
 * provides `readVotes`, `callProvider`, `commitProposal`, `endPresentation`
 * and `tellSettlement`. A bare machine calls nothing and commits what it offers.
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
    isOwnCommit: ({ context, event }) => {
      assertEvent(event, 'commit.done')
      return isOwnCommit(context, event)
    },
    isSettledHere: ({ context }) => context.outcome !== undefined,
    /** Settled meanwhile with this presentation's proposal: the write that just failed had landed. */
    isSettledAsOwn: ({ context }) =>
      context.outcome !== undefined && isOwnLostWrite(context, context.outcome),
    /** Settled with this presentation's proposal, whose write failed: it had landed. */
    isOwnSettlement: ({ context, event }) => {
      assertEvent(event, 'ask.settled')
      return isOwnLostWrite(context, event.outcome)
    },
    /** An approval already counted, after a write of it failed: that write had landed. */
    isOwnLostVote: ({ context }) => context.attempts > 0,
    countsApprovals: ({ context }) => context.policy?.approvals !== undefined,
    isYielding: ({ context }) => context.yielding,
    /** Trying the write again cannot help: the store's row of the ask does not parse. */
    isLastingFailure: ({ event }) => {
      assertEvent(event, 'commit.failed')
      return event.lasting
    },
    /** The ask ends here, or its provider went: it is not presented again. */
    isLeaving: ({ context }) => context.yielding || context.withdrawn,
    refusesResponder: ({ context }) => refusesResponder(context),
  },
  delays: {
    retry: ({ context }) => retryDelay(context.attempts - 1),
    pause: ({ context }) => retryDelay(context.refusals - 1),
  },
  actions: {
    /** Effect: reads the approvals the store counted so far; they come back as `votes.read`. */
    readVotes: raise(({ context }) => ({ type: 'votes.read' as const, given: context.given })),
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
    recordCommit: assign(({ context, event }) => {
      assertEvent(event, 'commit.done')
      return { outcome: event.outcome, won: isOwnCommit(context, event) }
    }),
    recordOwnSettlement: assign({ won: true }),
    /** The approval a failed write had counted: told as counted, as its own reply would have. */
    countLostVote: raise(({ event }) => {
      assertEvent(event, 'vote.already')
      return { type: 'vote.counted' as const, given: event.given }
    }),
    recordFailedCommit: assign(({ context }) => ({ attempts: context.attempts + 1 })),
    recordVotes: assign(({ event }) => {
      assertEvent(event, ['vote.counted', 'vote.already', 'votes.read'])
      return { given: event.given, attempts: 0, proposal: undefined }
    }),
    recordRefusal: assign(({ context }) => ({
      refusals: context.refusals + 1,
      proposal: undefined,
    })),
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
    // The ask ends while the answer's commit is under way or waits to be retried.
    recordYield: assign(({ event }) => {
      assertEvent(event, 'ask.ending')
      return { yielding: true, ending: uncommittedEnding(event.error) }
    }),
    recordOverdue: assign(({ context }) => ({
      ending: timeoutOutcome(context),
    })),
    recordStoreFailure: assign({ ending: storeFailedOutcome() }),
  },
}).createMachine({
  id: 'presentation',
  context: ({ input }) => ({
    askId: input.askId,
    questions: input.questions,
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
        { guard: 'countsApprovals', target: 'counting' },
        { target: 'presenting' },
      ],
    },
    // Approvals counted before this presentation opened (another console, a reloaded UI) are shown with it.
    counting: {
      entry: 'readVotes',
      on: /* @__PURE__ */ orComesDown({
        'votes.read': { target: 'presenting', actions: 'recordVotes' },
      }),
    },
    presenting: {
      entry: 'callProvider',
      on: /* @__PURE__ */ orComesDown({
        'provider.answered': { target: 'deciding', actions: 'proposeAnswer' },
        'provider.failed': { target: 'committing', actions: 'proposeRefusal' },
      }),
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
              {
                guard: 'isSettledAsOwn',
                target: '#presentation.accepted',
                actions: 'recordOwnSettlement',
              },
              { guard: 'isSettledHere', target: '#presentation.refused' },
              {
                guard: 'isLastingFailure',
                target: '#presentation.takenDown',
                actions: 'recordStoreFailure',
              },
              { guard: 'isYielding', target: '#presentation.takenDown' },
              { target: 'waiting', actions: 'recordFailedCommit' },
            ],
            // Counted, then: settled by another write meanwhile, leaving, or shown again.
            'vote.counted': [
              {
                guard: 'isSettledHere',
                target: '#presentation.refused',
                actions: ['recordVotes', tellCounted],
              },
              {
                guard: 'isLeaving',
                target: '#presentation.takenDown',
                actions: ['recordVotes', tellCounted],
              },
              { target: '#presentation.presenting', actions: ['recordVotes', tellCounted] },
            ],
            'vote.already': [
              { guard: 'isOwnLostVote', actions: 'countLostVote' },
              { guard: 'isSettledHere', target: '#presentation.refused', actions: 'recordVotes' },
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
            'ask.settled': [
              {
                guard: 'isOwnSettlement',
                target: '#presentation.accepted',
                actions: ['recordSettlement', 'recordOwnSettlement'],
              },
              { target: '#presentation.refused', actions: 'recordSettlement' },
            ],
            'ask.ending': { target: '#presentation.takenDown', actions: 'recordYield' },
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
      on: /* @__PURE__ */ orComesDown({}),
    },
    accepted: {
      type: 'final',
      entry: { type: 'tellSettlement', params: ({ context }) => verdictOf(context) },
    },
    refused: {
      type: 'final',
      entry: {
        type: 'endPresentation',
        params: ({ context }) => ({ error: refusedEnding(context) }),
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
