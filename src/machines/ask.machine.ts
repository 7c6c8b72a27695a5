import { assertEvent, and, assign, enqueueActions, raise, sendTo, setup } from 'xstate'
import {
  callerAbortOutcome,
  endingOf,
  noProviderOutcome,
  otherQuestionsOutcome,
  providerGoneOutcome,
  sameQuestions,
  seamClosedOutcome,
  storeFailedOutcome,
  handedOverOutcome,
  timeoutOutcome,
} from '../vocabulary/index.js'
import type {
  AskEnding,
  AskErrorData,
  AskOutcome,
  AskRejection,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
} from '../vocabulary/index.js'
import { presentationMachine } from './presentation.machine.js'
import type { PresentationInput, PresentationOutput } from './presentation.machine.js'
import { MAX_DELAY_MS, clampDelay } from './time.js'

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
  key?: string
  /** Validated questions (see `validateRequest`). */
  questions: AskUserQuestionItem[]
  agentId?: string
  startedAt: number
  /** Absolute deadline; absent waits indefinitely and arms no timer. */
  deadline?: number
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
}

/** An ask the store already held under the key, as the admission found it. */
export interface HeldAsk {
  askId: string
  questions: AskUserQuestionItem[]
  startedAt: number
  deadline?: number
  agentId?: string
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
  /** The local ending offered, once there is one: the first one stands. */
  proposal: AskProposal | undefined
  /** The outcome the caller gets: committed by the store, or a proposal that is not written. */
  outcome: AskOutcome | undefined
  cause: AskCause | undefined
}

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
  | { type: 'commit.failed' }
/** What an ask ends with: its outcome (none while it goes on) and who caused it. */

export type Decided = { outcome: AskOutcome | undefined; cause?: AskCause | undefined }

/** The transitions from a decided outcome to its final state: one per ending, chosen on the event itself. */
function toFinalStates<TArgs>(decided: (args: TArgs) => Decided) {
  return (['answered', 'cancelled', 'timedOut', 'aborted', 'failed'] as const).map((ending) => ({
    guard: { type: 'endsIn' as const, params: (args: TArgs) => ({ ...decided(args), ending }) },
    target: `#ask.${ending}`,
    actions: { type: 'recordOutcome' as const, params: decided },
  }))
}

const propose = (outcome: AskRejection, commit: boolean, cause?: AskCause) => ({
  proposal: cause === undefined ? { outcome, commit } : { outcome, commit, cause },
})

const heldOutcome = (result: AdmissionResult): AskOutcome | undefined =>
  result.status === 'existing' ? result.ask.outcome : undefined

/**
 * One ask, from the moment `ask()` accepts the request to the outcome its
 * caller receives, which is its output (DESIGN §6): admitting (the store
 * write), following (the store already held the ask under its key: wait for
 * its settlement), waiting for a provider, presented (a `presentationMachine`
 * child shows it and commits the provider's settlement), committing (a local
 * ending is only a proposal until the store commits it), and the finals. A
 * settlement committed elsewhere arrives as `ask.settled`.
 *
 * Each ask is its own root actor. The context is data; the store and the
 * provider live beside the actor in the seam, which provides `admit`,
 * `offerCommit` and the `presentation` child's effects. Transitions are pure.
 */
export const askMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as AskContext,
    events: {} as AskEvent,
    input: {} as AskInput,
    output: {} as AskOutput,
  },
  actors: { presentation: presentationMachine },
  guards: {
    hasProviderHere: ({ context }) => context.providerHere,
    hasProviderElsewhere: ({ context }) => context.providerElsewhere,
    hasProviderGone: ({ context }) => !context.providerHere,
    mayWaitForProvider: ({ context }) => context.waitForProviderMs > 0,
    hasProviderGrace: ({ context }) => context.providerGraceMs > 0,
    /** Another provider may still show the ask: one elsewhere now, one within the grace, or a human's later. */
    isTakenOverLater: ({ context }) =>
      context.providerElsewhere ||
      context.providerGraceMs > 0 ||
      (context.durable && context.key !== undefined),
    waitsForHuman: ({ context }) => context.durable && context.key !== undefined,
    isFleetUnknown: ({ context }) => !context.fleetKnown && !context.providerHere,
    /** A keyless ask nobody anywhere could take fails before anything is written (DESIGN §3). */
    isRefusedForNoProvider: ({ context }) =>
      context.key === undefined &&
      context.waitForProviderMs === 0 &&
      context.fleetKnown &&
      !context.providerHere &&
      !context.providerElsewhere,
    /** A held ask followed from a store nothing outlives needs a UI now, as a new one would. */
    isFollowedWithNoProvider: ({ context }) =>
      !context.durable &&
      context.waitForProviderMs === 0 &&
      !context.providerHere &&
      !context.providerElsewhere,
    isFleetProviderGone: ({ event }) => {
      assertEvent(event, 'providers.elsewhere')
      return !event.active
    },
    isDeadlineReached: ({ event }) => {
      assertEvent(event, 'ask.deadline')
      return event.final
    },
    hasNoProposal: ({ context }) => context.proposal === undefined,
    hasProposal: ({ context }) => context.proposal !== undefined,
    isCommittedProposal: ({ context }) => context.proposal?.commit === true,
    isAdmitted: ({ event }) => {
      assertEvent(event, 'admission.done')
      return event.result.status === 'admitted'
    },
    holdsOtherQuestions: ({ context, event }) => {
      assertEvent(event, 'admission.done')
      const { result } = event
      return result.status === 'existing' && !sameQuestions(result.ask.questions, context.questions)
    },
    endsIn: (_, params: Decided & { ending: AskEnding }) =>
      params.outcome !== undefined && endingOf(params.outcome) === params.ending,
  },
  delays: {
    deadline: ({ context }) => clampDelay((context.deadline ?? 0) - Date.now()),
    providerWait: ({ context }) => clampDelay(context.waitForProviderMs),
    providerGrace: ({ context }) => clampDelay(context.providerGraceMs),
  },
  actions: {
    /** Effect: writes the ask to the store; what it made of it comes back as `admission.*`. A bare machine admits at once. */
    admit: raise({ type: 'admission.done' as const, result: { status: 'admitted' as const } }),
    /** Effect: offers the proposal to the store; what it committed comes back as `commit.*`. A bare machine commits what it offers. */
    offerCommit: raise(({ context }) => ({
      type: 'commit.done' as const,
      outcome: (context.proposal as AskProposal).outcome,
      won: true,
    })),
    // Arms the deadline's one timer (the actor cancels it when it stops). A deadline
    // further off than a timer can hold fires early, not final, and is armed again.
    // The type arguments are spelled out because, inferred inside setup(), they lose
    // the named 'deadline' delay.
    armDeadline: enqueueActions<
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
    }),
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
    adoptHeldAsk: assign(({ event }) => {
      assertEvent(event, 'admission.done')
      const { ask } = event.result as Extract<AdmissionResult, { status: 'existing' }>
      return {
        askId: ask.askId,
        questions: ask.questions,
        startedAt: ask.startedAt,
        deadline: ask.deadline,
        agentId: ask.agentId,
      }
    }),
    /** The caller leaves a held ask it followed: nothing is written, the ask goes on. */
    keepHeldAsk: assign(({ context }) => ({
      proposal: { ...(context.proposal as AskProposal), commit: false },
    })),
    proposeCallerAbort: assign(() => propose(callerAbortOutcome(), true, 'caller')),
    // A keyed ask stays in the store for its key to resume (DESIGN §10).
    proposeSeamClosed: assign(({ context }) =>
      propose(seamClosedOutcome(), context.key === undefined),
    ),
    proposeTimeout: assign(({ context }) => propose(timeoutOutcome(context), true)),
    proposeNoProvider: assign(() => propose(noProviderOutcome(), true)),
    proposeProviderGone: assign(() => propose(providerGoneOutcome(), true)),
    proposePresentationEnding: assign((_, ending: AskRejection) => propose(ending, true)),
    refuseForNoProvider: assign({ outcome: noProviderOutcome() }),
    refuseOtherQuestions: assign(({ event }) => {
      assertEvent(event, 'admission.done')
      const { ask } = event.result as Extract<AdmissionResult, { status: 'existing' }>
      return { outcome: otherQuestionsOutcome(ask.askId) }
    }),
    recordStoreFailure: assign({ outcome: storeFailedOutcome(), cause: 'store' as const }),
    recordOutcome: assign((_, decided: Decided) => ({
      outcome: decided.outcome,
      cause: decided.cause,
    })),
  },
}).createMachine({
  id: 'ask',
  context: ({ input }) => ({
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
    proposal: undefined,
    outcome: undefined,
    cause: undefined,
  }),
  initial: 'checking',
  output: ({ context }) => {
    const outcome = context.outcome as AskOutcome
    if (outcome.status === 'answered') return outcome
    return context.cause === undefined
      ? { status: 'rejected', error: outcome.error }
      : { status: 'rejected', error: outcome.error, cause: context.cause }
  },
  on: {
    'provider.available': { actions: 'markProviderHere' },
    'provider.disposed': { actions: 'markProviderGone' },
    'providers.elsewhere': { actions: 'markProvidersElsewhere' },
  },
  states: {
    checking: {
      always: [
        { guard: 'isRefusedForNoProvider', target: 'failed', actions: 'refuseForNoProvider' },
        { guard: 'isFleetUnknown', target: 'awaitingFleet' },
        { target: 'admitting' },
      ],
    },
    // A seam that has not heard from its fleet yet waits for it before deciding NO_PROVIDER.
    awaitingFleet: {
      on: {
        'providers.elsewhere': { target: 'checking', actions: 'markProvidersElsewhere' },
        'provider.available': { target: 'checking', actions: 'markProviderHere' },
        'ask.aborted': { target: 'proposing', actions: ['proposeCallerAbort', 'keepHeldAsk'] },
        'seam.closed': { target: 'proposing', actions: ['proposeSeamClosed', 'keepHeldAsk'] },
      },
    },
    admitting: {
      entry: 'admit',
      on: {
        'admission.done': [
          { guard: 'holdsOtherQuestions', target: 'failed', actions: 'refuseOtherQuestions' },
          ...toFinalStates(({ event }: { event: AskEvent }) => ({
            outcome: event.type === 'admission.done' ? heldOutcome(event.result) : undefined,
          })),
          { guard: 'isAdmitted', target: 'admitted' },
          { guard: 'hasProposal', target: 'proposing', actions: 'keepHeldAsk' },
          { target: 'pending.following', actions: 'adoptHeldAsk' },
        ],
        'admission.failed': { target: 'failed', actions: 'recordStoreFailure' },
        'ask.aborted': { guard: 'hasNoProposal', actions: 'proposeCallerAbort' },
        'seam.closed': { guard: 'hasNoProposal', actions: 'proposeSeamClosed' },
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
        'ask.settled': toFinalStates(({ event }: { event: AskEvent }) => ({
          outcome: event.type === 'ask.settled' ? event.outcome : undefined,
        })),
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
          invoke: {
            id: 'presentation',
            src: 'presentation',
            input: ({ context }) => presentationInput(context),
            onDone: [
              ...toFinalStates(({ event }: { event: { output: PresentationOutput } }) =>
                presentationDecided(event.output),
              ),
              { guard: 'hasProposal', target: '#ask.proposing' },
              { guard: 'hasProviderGone', target: 'providerGone' },
              {
                target: '#ask.proposing',
                actions: {
                  type: 'proposePresentationEnding',
                  params: ({ event }) => (event.output as { ending: AskRejection }).ending,
                },
              },
            ],
          },
          // While the presentation runs, local endings go through it: it comes down
          // first, and a provider's settlement it is committing finishes before it.
          on: {
            // The first local ending stands; a later one only hurries the presentation down.
            'ask.deadline': [
              {
                guard: and(['isDeadlineReached', 'hasNoProposal']),
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
              { actions: 'takeDownPresentation' },
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
        ...toFinalStates(({ context }: { context: AskContext }) => ({
          outcome: context.proposal?.outcome,
          cause: context.proposal?.cause,
        })),
      ],
    },
    committing: {
      entry: 'offerCommit',
      on: {
        // The store's answer names the committed outcome whoever wrote it.
        'commit.done': toFinalStates(
          ({ context, event }: { context: AskContext; event: AskEvent }) =>
            event.type === 'commit.done'
              ? { outcome: event.outcome, cause: event.won ? context.proposal?.cause : undefined }
              : { outcome: undefined },
        ),
        'commit.failed': { target: 'failed', actions: 'recordStoreFailure' },
      },
    },
    answered: { type: 'final' },
    cancelled: { type: 'final' },
    aborted: { type: 'final' },
    timedOut: { type: 'final' },
    failed: { type: 'final' },
  },
})

function presentationInput(context: AskContext): PresentationInput {
  const input: PresentationInput = {
    askId: context.askId,
    questions: context.questions,
    startedAt: context.startedAt,
    openedAt: Date.now(),
  }
  if (context.agentId !== undefined) input.agentId = context.agentId
  if (context.deadline !== undefined) input.deadline = context.deadline
  return input
}

function presentationDecided(output: PresentationOutput): Decided {
  if (output.verdict === 'takenDown') return { outcome: undefined }
  return output.verdict === 'accepted'
    ? { outcome: output.outcome, cause: 'provider' }
    : { outcome: output.outcome }
}
