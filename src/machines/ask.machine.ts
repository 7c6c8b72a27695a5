import { assertEvent, assign, cancel, emit, raise, sendTo, setup } from 'xstate'
import {
  callerAbortOutcome,
  noProviderOutcome,
  providerGoneOutcome,
  seamClosedOutcome,
  storeFailedOutcome,
  handedOverOutcome,
  timeoutOutcome,
} from '../vocabulary/index.js'
import type { AskRejection } from '../vocabulary/index.js'
import {
  armDeadline,
  committedOutcome,
  adoptHeld,
  failUnwritten,
  askDelays,
  otherAskRefusal,
  replayedOutcome,
  initialContext,
  outputOf,
  presentationDecided,
  presentationInput,
  propose,
  proposeOnce,
  recorded,
  settledOutcome,
  settledWhileCommitting,
  writtenOnce,
  toEnding,
  unwrittenEnding,
} from './ask.context.js'
import type {
  AskContext,
  AskEmitted,
  AskEvent,
  AskInput,
  AskOutput,
  AskProposal,
  Decided,
} from './ask.context.js'
import { askGuards } from './ask.guards.js'
import { presentationMachine } from './presentation.machine.js'
import type { PresentationOutput } from './presentation.machine.js'

/**
 * One ask, from the moment `ask()` accepts the request to the outcome its
 * caller receives, which is its output (DESIGN §6): admitting (the store
 * write), following (the store already held the ask under its key: wait for
 * its settlement), waiting for a provider, presented (a `presentationMachine`
 * child shows it and commits the provider's settlement), committing (a local
 * ending is only a proposal until the store commits it), and the finals. A
 * settlement committed elsewhere arrives as `ask.settled`. Each ask is its own
 * root actor. The context is data; the store and the provider live beside the
 * actor in the seam, which provides `admit`, `offerCommit`, `leaveUnwritten`
 * and the `presentation` child's effects. Transitions are pure.
 */
export const askMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as AskContext,
    events: {} as AskEvent,
    input: {} as AskInput,
    output: {} as AskOutput,
    emitted: {} as AskEmitted,
    /** `admitting`: the store does not hold the ask yet. `shown`: a provider shows it, here or elsewhere. */
    tags: {} as 'admitting' | 'shown',
  },
  actors: { presentation: presentationMachine },
  guards: askGuards,
  delays: askDelays,
  actions: {
    /** Effect: writes the ask to the store; what it made of it comes back as `admission.*`. A bare machine admits at once. */
    admit: raise({ type: 'admission.done' as const, result: { status: 'admitted' as const } }),
    /** Effect: offers the proposal to the store; what it committed comes back as `commit.*`. A bare machine commits what it offers. */
    offerCommit: raise(({ context }) => ({
      type: 'commit.done' as const,
      outcome: (context.proposal as AskProposal).outcome,
      won: true,
    })),
    armDeadline,
    takeDownPresentation: sendTo('presentation', ({ context }) => ({
      type: 'ask.ending' as const,
      error: (context.proposal as AskProposal).outcome,
    })),
    // A provider that goes takes its presentation with it: with the ending it leaves
    // behind when nothing takes the ask over, else as a hand-over.
    withdrawPresentation: sendTo('presentation', ({ context }) => ({
      type: 'provider.withdrawn' as const,
      error: context.proposal?.outcome ?? handedOverOutcome(),
    })),
    forwardSettlement: sendTo('presentation', ({ event }) => {
      assertEvent(event, 'ask.settled')
      return event
    }),
    markProviderHere: assign({ providerHere: true }),
    markProviderGone: assign({ providerHere: false }),
    markProvidersElsewhere: assign(({ event }) => {
      assertEvent(event, 'providers.elsewhere')
      return { providerElsewhere: event.active, fleetKnown: true }
    }),
    adoptHeldAsk: assign(({ context, event }) => {
      assertEvent(event, 'admission.done')
      return adoptHeld(context, event.result)
    }),
    /** The followed ask ended without the human: this one asks anew, as the ask it minted. */
    leaveHeldAsk: assign(({ context }) => ({ ...context.own, own: undefined })),
    /** The caller leaves a held ask it followed: nothing is written, the ask goes on. */
    keepHeldAsk: assign(({ context }) => ({
      proposal: { ...(context.proposal as AskProposal), commit: false },
    })),
    proposeCallerAbort: assign(() => propose(callerAbortOutcome(), true, 'caller')),
    // A keyed ask stays in the store for its key to resume (DESIGN §10).
    proposeSeamClosed: assign(({ context }) =>
      proposeOnce(seamClosedOutcome(), context.key === undefined),
    ),
    proposeTimeout: assign(({ context }) => propose(timeoutOutcome(context), true)),
    proposeNoProvider: assign(() => propose(noProviderOutcome(), true)),
    // A failed admission may have landed: its failure is written too, so no row of it stays pending.
    proposeStoreFailure: assign(() => proposeOnce(storeFailedOutcome(), true, 'store')),
    proposeProviderGone: assign(() => propose(providerGoneOutcome(), true)),
    writeProposalOnce: assign(writtenOnce),
    proposePresentationEnding: assign((_, ending: AskRejection) => propose(ending, true)),
    refuseForNoProvider: assign({ outcome: noProviderOutcome() }),
    refuseOtherAsk: assign(({ context, event }) => {
      assertEvent(event, 'admission.done')
      return { outcome: otherAskRefusal(event.result, context) }
    }),
    failUnwritten,
    /** Effect: tells the seam the ending is unwritten, to be written later. A bare machine emits it. */
    leaveUnwritten: emit(unwrittenEnding),
    recordFailedCommit: assign(({ context }) => ({ commitAttempts: context.commitAttempts + 1 })),
    recordOutcome: assign((_, decided: Decided) => recorded(decided)),
  },
}).createMachine({
  id: 'ask',
  context: ({ input }) => initialContext(input),
  initial: 'checking',
  output: ({ context }) => outputOf(context),
  on: {
    'provider.available': { actions: 'markProviderHere' },
    'provider.disposed': { actions: 'markProviderGone' },
    'providers.elsewhere': { actions: 'markProvidersElsewhere' },
  },
  states: {
    checking: {
      tags: 'admitting',
      always: [
        { guard: 'isRefusedForNoProvider', target: 'failed', actions: 'refuseForNoProvider' },
        { guard: 'isFleetUnknown', target: 'awaitingFleet' },
        { target: 'admitting' },
      ],
    },
    // A seam that has not heard from its fleet yet waits for it before deciding NO_PROVIDER.
    awaitingFleet: {
      tags: 'admitting',
      on: {
        'providers.elsewhere': { target: 'checking', actions: 'markProvidersElsewhere' },
        'provider.available': { target: 'checking', actions: 'markProviderHere' },
        'ask.aborted': { target: 'proposing', actions: ['proposeCallerAbort', 'keepHeldAsk'] },
        'seam.closed': { target: 'proposing', actions: ['proposeSeamClosed', 'keepHeldAsk'] },
      },
    },
    admitting: {
      tags: 'admitting',
      entry: 'admit',
      on: {
        'admission.done': [
          { guard: 'holdsOtherAsk', target: 'failed', actions: 'refuseOtherAsk' },
          /* @__PURE__ */ toEnding(replayedOutcome, 'adoptHeldAsk'),
          { guard: 'isAdmitted', target: 'admitted' },
          { guard: 'hasProposal', target: 'proposing', actions: 'keepHeldAsk' },
          { target: 'pending.following', actions: 'adoptHeldAsk' },
        ],
        'admission.failed': { target: 'proposing', actions: 'proposeStoreFailure' },
        'ask.aborted': { guard: 'hasNoProposal', actions: 'proposeCallerAbort' },
        // An ending proposed before the seam closed is written once, as one being written is.
        'seam.closed': [
          { guard: 'hasNoProposal', actions: 'proposeSeamClosed' },
          { actions: 'writeProposalOnce' },
        ],
      },
    },
    admitted: {
      always: [{ guard: 'hasProposal', target: 'proposing' }, { target: 'pending' }],
    },
    pending: {
      entry: 'armDeadline',
      initial: 'starting',
      on: {
        'ask.deadline': [
          { guard: 'isDeadlineReached', target: 'proposing', actions: 'proposeTimeout' },
          { actions: 'armDeadline' },
        ],
        'ask.aborted': { target: 'proposing', actions: 'proposeCallerAbort' },
        'seam.closed': { target: 'proposing', actions: 'proposeSeamClosed' },
        'ask.settled': /* @__PURE__ */ toEnding(settledOutcome),
      },
      states: {
        starting: {
          always: [
            { guard: 'hasProviderHere', target: 'presented' },
            { guard: 'hasProviderElsewhere', target: 'presentedElsewhere' },
            { guard: 'waitsForHuman', target: 'waitingForProvider.forHuman' },
            { guard: 'mayWaitForProvider', target: 'waitingForProvider.first' },
            { target: '#ask.proposing', actions: 'proposeNoProvider' },
          ],
        },
        waitingForProvider: {
          initial: 'first',
          on: {
            'provider.available': { target: 'presented', actions: 'markProviderHere' },
            'providers.elsewhere': [
              { guard: 'isFleetProviderGone', actions: 'markProvidersElsewhere' },
              { target: 'presentedElsewhere', actions: 'markProvidersElsewhere' },
            ],
          },
          states: {
            first: {
              after: {
                providerWait: { target: '#ask.proposing', actions: 'proposeNoProvider' },
              },
            },
            handOver: {
              after: {
                providerGrace: { target: '#ask.proposing', actions: 'proposeProviderGone' },
              },
            },
            // A keyed ask on a durable store: a question left for a human (DESIGN §10).
            forHuman: {},
          },
        },
        presented: {
          tags: 'shown',
          invoke: {
            id: 'presentation',
            src: 'presentation',
            input: ({ context }) => presentationInput(context),
            onDone: [
              /* @__PURE__ */ toEnding(({ event }: { event: { output: PresentationOutput } }) =>
                presentationDecided(event.output),
              ),
              { guard: 'hasProposal', target: '#ask.proposing' },
              { guard: 'isWithdrawn', target: 'providerGone' },
              {
                target: '#ask.proposing',
                actions: {
                  type: 'proposePresentationEnding',
                  params: ({ event }) => (event.output as { ending: AskRejection }).ending,
                },
              },
            ],
          },
          // Local endings go through the presentation: a settlement it commits finishes first.
          on: {
            // The first local ending stands; a later one only hurries the presentation down.
            'ask.deadline': [
              {
                guard: 'isFirstEndingByDeadline',
                actions: ['proposeTimeout', 'takeDownPresentation'],
              },
              { guard: 'isDeadlineReached', actions: 'takeDownPresentation' },
              { actions: 'armDeadline' },
            ],
            'ask.aborted': [
              { guard: 'hasNoProposal', actions: ['proposeCallerAbort', 'takeDownPresentation'] },
              { actions: 'takeDownPresentation' },
            ],
            'seam.closed': [
              { guard: 'hasNoProposal', actions: ['proposeSeamClosed', 'takeDownPresentation'] },
              { actions: ['writeProposalOnce', 'takeDownPresentation'] },
            ],
            'ask.settled': { actions: 'forwardSettlement' },
            'provider.disposed': [
              {
                guard: 'isTakenOverLater',
                actions: ['markProviderGone', 'withdrawPresentation'],
              },
              {
                guard: 'hasNoProposal',
                actions: ['markProviderGone', 'proposeProviderGone', 'withdrawPresentation'],
              },
              { actions: 'markProviderGone' },
            ],
          },
        },
        presentedElsewhere: {
          tags: 'shown',
          on: {
            'provider.available': { target: 'presented', actions: 'markProviderHere' },
            'providers.elsewhere': [
              {
                guard: 'isFleetProviderGone',
                target: 'providerGone',
                actions: 'markProvidersElsewhere',
              },
              { actions: 'markProvidersElsewhere' },
            ],
          },
        },
        // The provider that showed the ask went, here or on the last other live seam.
        providerGone: {
          always: [
            // The next one registered here before the presentation came down: it is shown the ask.
            { guard: 'hasProviderHere', target: 'presented' },
            { guard: 'hasProviderElsewhere', target: 'presentedElsewhere' },
            { guard: 'waitsForHuman', target: 'waitingForProvider.forHuman' },
            { guard: 'hasProviderGrace', target: 'waitingForProvider.handOver' },
            { target: '#ask.proposing', actions: 'proposeProviderGone' },
          ],
        },
        // Another seam admitted the ask under this key; it is shown wherever a provider is.
        following: {
          initial: 'joining',
          // Its own caller still waits on the other seam: leaving writes nothing.
          on: {
            'ask.aborted': {
              target: '#ask.proposing',
              actions: ['proposeCallerAbort', 'keepHeldAsk'],
            },
            'ask.settled': {
              guard: 'isEndedWithoutHuman',
              target: '#ask.admitting',
              actions: [/* @__PURE__ */ cancel('deadline'), 'leaveHeldAsk'],
            },
          },
          states: {
            joining: {
              always: [
                {
                  guard: 'isFollowedWithNoProvider',
                  target: '#ask.failed',
                  actions: 'refuseForNoProvider',
                },
                { target: 'watching' },
              ],
            },
            watching: {},
          },
        },
      },
    },
    proposing: {
      always: [
        { guard: 'isCommittedProposal', target: 'committing' },
        /* @__PURE__ */ toEnding(({ context }: { context: AskContext }) => ({
          outcome: context.proposal?.outcome,
          cause: context.proposal?.cause,
        })),
      ],
    },
    // A failure that may pass is tried again with backoff: the store, not a lock, says how the ask ends.
    committing: {
      tags: 'shown',
      initial: 'writing',
      on: {
        // The store's answer names the committed outcome whoever wrote it.
        'commit.done': /* @__PURE__ */ toEnding(committedOutcome),
        // So does the feed, before the write's reply or in place of a lost one.
        'ask.settled': /* @__PURE__ */ toEnding(settledWhileCommitting),
      },
      states: {
        writing: {
          entry: 'offerCommit',
          on: {
            'commit.failed': [
              { guard: 'mayRetryCommit', target: 'waiting', actions: 'recordFailedCommit' },
              { target: '#ask.failed', actions: 'failUnwritten' },
            ],
            'seam.closed': 'lastWrite',
          },
        },
        // The seam closed while a write was under way: that write is the last.
        lastWrite: {
          on: { 'commit.failed': { target: '#ask.failed', actions: 'failUnwritten' } },
        },
        waiting: {
          after: { commitRetry: 'writing' },
          on: { 'seam.closed': { target: '#ask.failed', actions: 'failUnwritten' } },
        },
      },
    },
    // The one place an outcome picks its final state.
    ending: {
      always: [
        { guard: { type: 'endsIn', params: { ending: 'answered' } }, target: 'answered' },
        { guard: { type: 'endsIn', params: { ending: 'cancelled' } }, target: 'cancelled' },
        { guard: { type: 'endsIn', params: { ending: 'timedOut' } }, target: 'timedOut' },
        { guard: { type: 'endsIn', params: { ending: 'aborted' } }, target: 'aborted' },
        { target: 'failed' },
      ],
    },
    answered: { type: 'final' },
    cancelled: { type: 'final' },
    aborted: { type: 'final' },
    timedOut: { type: 'final' },
    failed: { type: 'final' },
  },
})
