import { assertEvent, assign, enqueueActions, raise, setup } from 'xstate'
import type { PromiseActorLogic, PromiseSnapshot } from 'xstate'
import { UserQuestionError, UserQuestionErrorCodes, validateAnswer } from '../vocabulary/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestionErrorCode,
} from '../vocabulary/index.js'

/** How an ask ended: errors are data here; only the seam adapter rejects a promise. */
export type AskOutput =
  | { status: 'answered'; answer: AskUserQuestionAnswer }
  | { status: 'rejected'; error: UserQuestionError }

/** An error as data: what a store keeps and what the context holds (never an `Error` object). */
export interface AskErrorData {
  code: UserQuestionErrorCode
  message: string
  details?: Record<string, unknown>
}

/** A settlement as data: the shape a store commits (`StoredOutcome` in the protocol layer). */
export type AskOutcome =
  | { status: 'answered'; answer: AskUserQuestionAnswer }
  | { status: 'rejected'; error: AskErrorData }

/** The final state an outcome leads to. */
export type AskEnding = 'answered' | 'cancelled' | 'aborted' | 'timedOut' | 'failed'

/** What one ask starts from. Times are epoch milliseconds so a restored ask keeps its deadline. */
export interface AskInput {
  askId: string
  /** Validated questions (see `validateRequest`). */
  questions: AskUserQuestionItem[]
  agentId?: string
  startedAt: number
  /** Absolute deadline; absent waits indefinitely and arms no timer. */
  deadline?: number
  /** How long to wait for a first provider when none is registered. 0: fail at once. */
  waitForProviderMs: number
  /** How long a disposed provider's asks wait for the next one. 0: abort at once. */
  providerGraceMs: number
  /** Whether the seam running the ask has an active provider when it starts. @default false */
  providerHere?: boolean
  /** Whether a provider is active on another live seam sharing the store. @default false */
  providerElsewhere?: boolean
}

/** Data only: `getPersistedSnapshot()` of an ask is plain JSON. */
export interface AskContext {
  askId: string
  questions: AskUserQuestionItem[]
  agentId: string | undefined
  startedAt: number
  deadline: number | undefined
  waitForProviderMs: number
  providerGraceMs: number
  providerHere: boolean
  providerElsewhere: boolean
  /** The local ending offered to the store, and the final state it leads to if it is committed. */
  proposal: { outcome: AskOutcome; ending: AskEnding; byProvider: boolean } | undefined
  /** The outcome the store committed (this seam's or another's), and its final state. */
  outcome: AskOutcome | undefined
  ending: AskEnding | undefined
  /** Whether the committed outcome is this ask's own proposal (so its cause is known here). */
  committedHere: boolean
}

/**
 * What an ask hears from outside. `ask.aborted` comes from whoever runs the
 * actor and watches the caller's signal; `provider.*` from the seam's
 * provider slot; `providers.elsewhere` when the fleet sharing the store gains
 * or loses its last other provider; `ask.settled` when a settlement committed
 * elsewhere reaches this seam through the store's change feed; `commit.done`
 * and `commit.failed` from the store the ask's own proposal was offered to
 * (`offerCommit`).
 */
export type AskEvent =
  | { type: 'provider.available' }
  | { type: 'provider.disposed' }
  | { type: 'providers.elsewhere'; active: boolean }
  | { type: 'ask.aborted'; reason?: unknown }
  | { type: 'seam.closed' }
  /** Raised by the ask itself at its deadline. */
  | { type: 'ask.deadline' }
  | { type: 'ask.settled'; outcome: AskOutcome }
  /** What the store committed for this ask's proposal: `won` when it is the outcome offered. */
  | { type: 'commit.done'; outcome: AskOutcome; won: boolean }
  | { type: 'commit.failed' }

/** What the presenting step is given: data only; the seam binds the live provider and signal. */
export interface PresentInput {
  askId: string
  questions: AskUserQuestionItem[]
  agentId?: string
  deadline?: number
}

/** What the committing effect offers the store. */
export interface CommitInput {
  askId: string
  outcome: AskOutcome
}

/** What the store committed: `won` when it is the outcome offered. */
export interface CommitResult {
  outcome: AskOutcome
  won: boolean
}

const STEP_DONE = 'xstate.promise.resolve'
const STEP_FAILED = 'xstate.promise.reject'

/**
 * A promise actor for the ask's presenting step: it settles, stops and reports
 * errors exactly as XState's `fromPromise`, but makes no `AbortController`.
 * It has no use for one: the provider's signal is the seam's own, which the
 * machine's effects abort with the reason the question goes
 * (`takeDownPresentation`, `takeBackPresentation`). A controller per step
 * was about 0.8 KB of every pending ask.
 *
 * `finish` turns what `run` fulfilled with into the step's output (a throw
 * fails the step), and `fail` what it rejected with into the step's error, so
 * neither costs a second promise.
 */
function fromStep<TOutput, TInput, TRaw = TOutput>(
  run: (input: TInput) => PromiseLike<TRaw> | TRaw,
  finish: (input: TInput, raw: TRaw) => TOutput,
  fail: (input: TInput, error: unknown) => unknown,
): PromiseActorLogic<TOutput, TInput> {
  return {
    config: run,
    transition: (snapshot, event) => {
      if (snapshot.status !== 'active') return snapshot
      switch (event.type) {
        case STEP_DONE:
          return { ...snapshot, status: 'done', output: event.data as TOutput, input: undefined }
        case STEP_FAILED:
          return { ...snapshot, status: 'error', error: event.data, input: undefined }
        case 'xstate.stop':
          return { ...snapshot, status: 'stopped', input: undefined }
        default:
          return snapshot
      }
    },
    start: (snapshot, { self }) => {
      if (snapshot.status !== 'active') return
      const input = snapshot.input as TInput
      let pending: Promise<TRaw>
      try {
        pending = Promise.resolve(run(input))
      } catch (error: unknown) {
        pending = Promise.reject(error as Error)
      }
      pending.then(
        (raw) => {
          if (self.getSnapshot().status !== 'active') return
          let data: TOutput
          try {
            data = finish(input, raw)
          } catch (error: unknown) {
            self.send({ type: STEP_FAILED, data: error })
            return
          }
          self.send({ type: STEP_DONE, data })
        },
        (error: unknown) => {
          if (self.getSnapshot().status !== 'active') return
          let data: unknown
          try {
            data = fail(input, error)
          } catch (thrown: unknown) {
            data = thrown
          }
          self.send({ type: STEP_FAILED, data })
        },
      )
    },
    getInitialSnapshot: (_, input) => ({
      status: 'active',
      output: undefined,
      error: undefined,
      input,
    }),
    getPersistedSnapshot: (snapshot) => snapshot,
    restoreSnapshot: (snapshot) => snapshot as PromiseSnapshot<TOutput, TInput>,
  }
}

/**
 * What the seam hears of its provider's promise, on the presenting step's own
 * chain: no second promise per ask. Called only while the step runs.
 */
export interface PresenterHooks {
  /** The provider fulfilled (before its answer is checked). */
  answered?(input: PresentInput): void
  /** The provider rejected: returns the error the step fails with. */
  failed?(input: PresentInput, error: unknown): unknown
}

/**
 * The presenting step as the seam provides it: `ask` hands the request to the
 * live provider (the seam keeps it, and the signal, beside the actor); the
 * answer is validated here, so the rule lives with the machine.
 */
export function createPresenter(
  ask: (input: PresentInput) => PromiseLike<unknown>,
  hooks: PresenterHooks = {},
): PromiseActorLogic<AskUserQuestionAnswer, PresentInput> {
  return fromStep(
    ask,
    (input, raw) => {
      hooks.answered?.(input)
      return validateAnswer(input.questions, raw)
    },
    (input, error) => (hooks.failed === undefined ? error : hooks.failed(input, error)),
  )
}

/** The default presenting step: a bare machine has no provider to call. */
export const presentToProvider = /* @__PURE__ */ createPresenter(() =>
  Promise.reject(new UserQuestionError('no provider is bound to this ask', 'PROVIDER_FAILED')),
)

/**
 * The committing effect as the seam provides it: `commit` offers the proposal
 * to the store, and what the store committed comes back to the ask as
 * `commit.done` (or `commit.failed`). An effect and an event rather than an
 * invoked actor: a store write, once sent, is not taken back, so a child
 * actor would only cost every ask one more actor to build and stop (about a
 * tenth of a memory round trip). A result that arrives after the actor
 * stopped is dropped.
 */
export function createCommitOffer(
  commit: (input: CommitInput) => Promise<CommitResult>,
): (args: {
  context: AskContext
  self: { getSnapshot(): { status: string }; send(event: AskEvent): void }
}) => void {
  return ({ context, self }) => {
    const tell = (event: AskEvent) => {
      if (self.getSnapshot().status === 'active') self.send(event)
    }
    let committed: Promise<CommitResult>
    try {
      committed = commit({ askId: context.askId, outcome: proposedOutcome(context) })
    } catch (error: unknown) {
      committed = Promise.reject(error as Error)
    }
    committed.then(
      (result) => tell({ type: 'commit.done', outcome: result.outcome, won: result.won }),
      () => tell({ type: 'commit.failed' }),
    )
  }
}

/** An outcome that is an error: what every ending but an answer proposes. */
type Rejection = { status: 'rejected'; error: AskErrorData }

const rejected = (
  code: UserQuestionErrorCode,
  message: string,
  details?: Record<string, unknown>,
): Rejection => ({
  status: 'rejected',
  error: details === undefined ? { code, message } : { code, message, details },
})

/** The outcome of a caller's abort (the seam keeps the signal's reason as `cause`). */
export const callerAbortOutcome = (): Rejection =>
  rejected('ASK_ABORTED', 'the caller aborted the ask', { reason: 'caller-aborted' })

/** The outcome of an ask no provider anywhere could take. */
export const noProviderOutcome = (): Rejection =>
  rejected('NO_PROVIDER', 'no question provider is registered to ask the user')

/** The outcome of an ask whose seam closed while it was pending. */
export const seamClosedOutcome = (): Rejection =>
  rejected('SEAM_CLOSED', 'the seam was closed while the ask was pending')

/** An error read from a provider, as data. Reads nothing that could throw twice: see `errorData`. */
export function errorData(error: UserQuestionError): AskErrorData {
  return error.details === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, details: { ...error.details } }
}

/** The final state a committed outcome leads to when another seam chose it. */
export function endingOf(outcome: AskOutcome): AskEnding {
  if (outcome.status === 'answered') return 'answered'
  switch (outcome.error.code) {
    case 'ASK_CANCELLED':
      return 'cancelled'
    case 'ASK_TIMEOUT':
      return 'timedOut'
    case 'ASK_ABORTED':
    case 'SEAM_CLOSED':
      return 'aborted'
    default:
      return 'failed'
  }
}

/** Rebuilds the error an outcome stands for: same code, message and details. */
export function outcomeError(error: AskErrorData): UserQuestionError {
  const code = Object.hasOwn(UserQuestionErrorCodes, error.code) ? error.code : 'PROVIDER_FAILED'
  return new UserQuestionError(
    error.message,
    code,
    error.details === undefined ? {} : { details: error.details },
  )
}

/**
 * The transitions from a committed outcome to its final state, tried in
 * order: `guard` (given the ending) picks one of the four, and what is left
 * ends `failed`. Chosen on the settling event itself, not in a transient
 * state after it: one microstep fewer per ask.
 */
function toFinalStates<TGuard extends 'commitEndsIn' | 'settlesIn', TAction extends string>(
  guard: TGuard,
  action: TAction,
) {
  return [
    ...(['answered', 'cancelled', 'timedOut', 'aborted'] as const).map((ending) => ({
      guard: { type: guard, params: ending },
      target: ending,
      actions: action,
    })),
    { target: 'failed' as const, actions: action },
  ]
}

/** The outcome `committing` offers: every transition into it proposes one first. */
function proposedOutcome(context: AskContext): AskOutcome {
  return (context.proposal as { outcome: AskOutcome }).outcome
}

/** The final state a commit leads to: this ask's own proposal's when it won, the outcome's when not. */
function committedEnding(context: AskContext, result: CommitResult): AskEnding {
  return result.won && context.proposal !== undefined
    ? context.proposal.ending
    : endingOf(result.outcome)
}

const propose = (outcome: AskOutcome, ending: AskEnding, byProvider = false) => ({
  proposal: { outcome, ending, byProvider },
})

/**
 * One pending ask, from admission to the single outcome its store commits.
 * A local ending (an answer, a UI cancel, the caller's abort, the deadline,
 * the provider gone, close) is only a proposal: `committing` offers it to the
 * store and the ask ends with whatever the store committed, which may be
 * another seam's. A settlement committed elsewhere arrives as `ask.settled`.
 *
 * Each ask is its own root actor (DESIGN §6). The context is data; the
 * provider, the presentation's signal and the store live beside the actor in
 * the seam, which provides `presentToProvider`, `offerCommit`,
 * `takeDownPresentation` and `takeBackPresentation`. Transitions are pure:
 * `getNextSnapshot` runs no effect.
 */
export const askMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as AskContext,
    events: {} as AskEvent,
    input: {} as AskInput,
    output: {} as AskOutput,
  },
  actors: { presentToProvider },
  guards: {
    hasProviderHere: ({ context }) => context.providerHere,
    hasProviderElsewhere: ({ context }) => context.providerElsewhere,
    mayWaitForProvider: ({ context }) => context.waitForProviderMs > 0,
    hasProviderGrace: ({ context }) => context.providerGraceMs > 0,
    isFleetProviderGone: ({ event }) => {
      assertEvent(event, 'providers.elsewhere')
      return !event.active
    },
    commitEndsIn: ({ context, event }, ending: AskEnding) => {
      assertEvent(event, 'commit.done')
      return committedEnding(context, event) === ending
    },
    settlesIn: ({ event }, ending: AskEnding) => {
      assertEvent(event, 'ask.settled')
      return endingOf(event.outcome) === ending
    },
  },
  delays: {
    deadline: ({ context }) => Math.max(0, (context.deadline ?? 0) - Date.now()),
    providerWait: ({ context }) => context.waitForProviderMs,
    providerGrace: ({ context }) => context.providerGraceMs,
  },
  actions: {
    // Arms the deadline's one timer, for an ask that has one; the actor cancels it when it stops.
    // The type arguments are spelled out because, inferred inside setup(), they lose the named
    // 'deadline' delay (and the other actions' params); this one uses no actor, action or guard.
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
      if (context.deadline !== undefined) {
        enqueue.raise({ type: 'ask.deadline' }, { delay: 'deadline', id: 'deadline' })
      }
    }),
    /**
     * Effect: offers the proposal to the store (see `createCommitOffer`). A bare machine
     * has no store: the outcome offered is the outcome, committed at once.
     */
    offerCommit: raise(({ context }) => ({
      type: 'commit.done' as const,
      outcome: proposedOutcome(context),
      won: true,
    })),
    /** Effect: the seam aborts the presentation with a hand-over reason. A no-op on a bare machine. */
    takeBackPresentation: () => undefined,
    /**
     * Effect: a local ending takes the question down at once, with the error it
     * proposes (the provider's own settlement leaves it alone). A no-op on a bare machine.
     */
    takeDownPresentation: () => undefined,
    markProviderHere: assign({ providerHere: true }),
    markProviderGone: assign({ providerHere: false }),
    markProvidersElsewhere: assign(({ event }) => {
      assertEvent(event, 'providers.elsewhere')
      return { providerElsewhere: event.active }
    }),
    proposeAnswer: assign((_, answer: AskUserQuestionAnswer) =>
      propose({ status: 'answered', answer }, 'answered', true),
    ),
    proposeProviderError: assign((_, error: AskErrorData) =>
      propose(
        { status: 'rejected', error },
        error.code === 'ASK_CANCELLED' ? 'cancelled' : 'failed',
        true,
      ),
    ),
    proposeNoProvider: assign(() => propose(noProviderOutcome(), 'failed')),
    proposeProviderGone: assign(() =>
      propose(
        rejected('ASK_ABORTED', 'the provider was disposed while the ask was pending', {
          reason: 'provider-disposed',
        }),
        'aborted',
      ),
    ),
    proposeCallerAbort: assign(() => propose(callerAbortOutcome(), 'aborted')),
    proposeSeamClosed: assign(() => propose(seamClosedOutcome(), 'aborted')),
    proposeTimeout: assign(({ context }) =>
      propose(
        rejected('ASK_TIMEOUT', 'nobody answered before the deadline', {
          deadline: context.deadline,
          startedAt: context.startedAt,
        }),
        'timedOut',
      ),
    ),
    recordCommit: assign(({ context, event }) => {
      assertEvent(event, 'commit.done')
      return {
        outcome: event.outcome,
        committedHere: event.won,
        ending: committedEnding(context, event),
      }
    }),
    recordSettledElsewhere: assign(({ event }) => {
      assertEvent(event, 'ask.settled')
      return { outcome: event.outcome, committedHere: false, ending: endingOf(event.outcome) }
    }),
    recordStoreFailure: assign(() => ({
      outcome: rejected('STORE_FAILED', 'the ask store could not record the outcome'),
      ending: 'failed' as const,
      committedHere: true,
    })),
  },
}).createMachine({
  id: 'ask',
  context: ({ input }) => ({
    askId: input.askId,
    questions: input.questions,
    agentId: input.agentId,
    startedAt: input.startedAt,
    deadline: input.deadline,
    waitForProviderMs: input.waitForProviderMs,
    providerGraceMs: input.providerGraceMs,
    providerHere: input.providerHere ?? false,
    providerElsewhere: input.providerElsewhere ?? false,
    proposal: undefined,
    outcome: undefined,
    ending: undefined,
    committedHere: false,
  }),
  initial: 'pending',
  output: ({ context }) => {
    const outcome = context.outcome as AskOutcome
    return outcome.status === 'answered'
      ? outcome
      : { status: 'rejected', error: outcomeError(outcome.error) }
  },
  states: {
    pending: {
      initial: 'starting',
      entry: 'armDeadline',
      on: {
        'ask.aborted': { target: 'committing', actions: 'proposeCallerAbort' },
        'seam.closed': { target: 'committing', actions: 'proposeSeamClosed' },
        'ask.deadline': { target: 'committing', actions: 'proposeTimeout' },
        'ask.settled': /* @__PURE__ */ toFinalStates('settlesIn', 'recordSettledElsewhere'),
        'providers.elsewhere': {
          actions: 'markProvidersElsewhere',
        },
      },
      states: {
        starting: {
          always: [
            { guard: 'hasProviderHere', target: 'presenting' },
            { guard: 'hasProviderElsewhere', target: 'presentedElsewhere' },
            { guard: 'mayWaitForProvider', target: 'waitingForProvider' },
            { target: '#ask.committing', actions: 'proposeNoProvider' },
          ],
        },
        waitingForProvider: {
          initial: 'first',
          on: {
            'provider.available': { target: 'presenting', actions: 'markProviderHere' },
            'providers.elsewhere': [
              {
                guard: 'isFleetProviderGone',
                actions: 'markProvidersElsewhere',
              },
              {
                target: 'presentedElsewhere',
                actions: 'markProvidersElsewhere',
              },
            ],
          },
          states: {
            first: {
              after: { providerWait: { target: '#ask.committing', actions: 'proposeNoProvider' } },
            },
            handOver: {
              after: {
                providerGrace: { target: '#ask.committing', actions: 'proposeProviderGone' },
              },
            },
          },
        },
        presenting: {
          invoke: {
            src: 'presentToProvider',
            input: ({ context }) => presentInput(context),
            onDone: {
              target: '#ask.committing',
              actions: { type: 'proposeAnswer', params: ({ event }) => event.output },
            },
            onError: {
              target: '#ask.committing',
              actions: {
                type: 'proposeProviderError',
                params: ({ event }) => providerErrorData(event.error),
              },
            },
          },
          on: {
            'provider.disposed': [
              {
                guard: 'hasProviderElsewhere',
                target: 'presentedElsewhere',
                actions: ['markProviderGone', 'takeBackPresentation'],
              },
              {
                guard: 'hasProviderGrace',
                target: 'waitingForProvider.handOver',
                actions: ['markProviderGone', 'takeBackPresentation'],
              },
              { target: '#ask.committing', actions: ['markProviderGone', 'proposeProviderGone'] },
            ],
          },
        },
        presentedElsewhere: {
          on: {
            'provider.available': { target: 'presenting', actions: 'markProviderHere' },
            'providers.elsewhere': [
              {
                guard: 'isFleetProviderGone',
                target: '#ask.pending.fleetProviderGone',
                actions: 'markProvidersElsewhere',
              },
              { actions: 'markProvidersElsewhere' },
            ],
          },
        },
        // The last provider sharing the store went: the asking seam's grace applies (§10).
        fleetProviderGone: {
          always: [
            { guard: 'hasProviderGrace', target: 'waitingForProvider.handOver' },
            { target: '#ask.committing', actions: 'proposeProviderGone' },
          ],
        },
      },
    },
    committing: {
      entry: ['takeDownPresentation', 'offerCommit'],
      on: {
        // The store's answer names the committed outcome whoever wrote it: no other event needed.
        'commit.done': /* @__PURE__ */ toFinalStates('commitEndsIn', 'recordCommit'),
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

function presentInput(context: AskContext): PresentInput {
  const input: PresentInput = { askId: context.askId, questions: context.questions }
  if (context.agentId !== undefined) input.agentId = context.agentId
  if (context.deadline !== undefined) input.deadline = context.deadline
  return input
}

/**
 * The presenting step rejects with a `UserQuestionError` the seam already
 * made safe to read; anything else (a bare machine's own step, a swapped
 * implementation) is read defensively, so a hostile value cannot fault the
 * transition.
 */
function providerErrorData(error: unknown): AskErrorData {
  try {
    if (error instanceof UserQuestionError) return errorData(error)
  } catch {
    // Falls through: a getter on the error threw.
  }
  return { code: 'PROVIDER_FAILED', message: 'The question provider failed' }
}
