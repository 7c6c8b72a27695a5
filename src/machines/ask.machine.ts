import { assign, enqueueActions, fromPromise, setup } from 'xstate'
import { UserQuestionError, toUserQuestionError } from '../vocabulary/index.js'
import type {
  Agent,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  ProviderRequest,
  UserQuestionProvider,
} from '../vocabulary/index.js'
import { validateAnswer } from '../vocabulary/index.js'

/** How an ask ended: errors are data here; only the seam adapter rejects a promise. */
export type AskOutput =
  | { status: 'answered'; answer: AskUserQuestionAnswer }
  | { status: 'rejected'; error: UserQuestionError }

/** What one ask starts from. Times are epoch milliseconds so a restored ask keeps its deadline. */
export interface AskInput {
  askId: string
  /** Validated questions (see `validateRequest`). */
  questions: AskUserQuestionItem[]
  agent?: Agent
  /** The provider active when the ask starts, if any. */
  provider?: UserQuestionProvider
  startedAt: number
  /** Absolute deadline; absent waits indefinitely and arms no timer. */
  deadline?: number
  /** How long to wait for a first provider when none is registered. 0: fail at once. */
  waitForProviderMs: number
  /** How long a disposed provider's asks wait for the next one. 0: abort at once. */
  providerGraceMs: number
}

export interface AskContext {
  askId: string
  questions: AskUserQuestionItem[]
  agent: Agent | undefined
  provider: UserQuestionProvider | undefined
  startedAt: number
  deadline: number | undefined
  waitForProviderMs: number
  providerGraceMs: number
  /** Controls the signal handed to the presenting provider; its reason is the error that took the ask away. */
  presentation: AbortController | undefined
  outcome: AskOutput | undefined
}

/**
 * What an ask hears from outside. `ask.aborted` comes from whoever runs the
 * actor and watches the caller's signal (the seam does, one listener per
 * signal); the provider announcements come from `seamMachine`.
 */
export type AskEvent =
  | { type: 'provider.available'; provider: UserQuestionProvider }
  | { type: 'provider.disposed' }
  | { type: 'ask.aborted'; reason?: unknown }
  | { type: 'seam.closed' }
  /** Raised by the ask itself, `deadline` milliseconds after it starts. */
  | { type: 'ask.deadline' }

/** The provider's settlement, already validated into the canonical answer. */
export const presentToProvider = fromPromise<
  AskUserQuestionAnswer,
  { provider: UserQuestionProvider; request: ProviderRequest }
>(async ({ input }) => {
  const { provider, request } = input
  let answer: unknown
  try {
    const pending: unknown = provider.ask(request)
    if (typeof (pending as { then?: unknown } | null)?.then !== 'function') {
      throw new UserQuestionError(
        'the provider must return a promise from ask()',
        'PROVIDER_FAILED',
        {
          details: { rule: 'returns-promise' },
        },
      )
    }
    answer = await pending
  } catch (error: unknown) {
    throw toUserQuestionError(error)
  }
  return validateAnswer(request.questions, answer)
})

const reject = (error: UserQuestionError): AskOutput => ({ status: 'rejected', error })

/**
 * One pending ask, from admission to its single outcome. Each ask is its own
 * root actor (DESIGN §6): a shared parent would copy its children on every
 * spawn. A timer is armed only for an ask that has a deadline (a delayed
 * `ask.deadline` on entry, named delay `deadline`): no parallel region, so
 * each step of the ask stays cheap.
 */
export const askMachine = setup({
  types: {
    context: {} as AskContext,
    events: {} as AskEvent,
    input: {} as AskInput,
    output: {} as AskOutput,
  },
  actors: { presentToProvider },
  guards: {
    hasProvider: ({ context }) => context.provider !== undefined,
    mayWaitForProvider: ({ context }) => context.waitForProviderMs > 0,
    hasProviderGrace: ({ context }) => context.providerGraceMs > 0,
    isCancellation: (_, error: unknown) => toUserQuestionError(error).code === 'ASK_CANCELLED',
  },
  delays: {
    deadline: ({ context }) => Math.max(0, (context.deadline ?? 0) - Date.now()),
    providerWait: ({ context }) => context.waitForProviderMs,
    providerGrace: ({ context }) => context.providerGraceMs,
  },
  actions: {
    // Arms a timer only for an ask that has a deadline; the actor cancels it when it stops.
    armDeadline: enqueueActions(({ context, enqueue }) => {
      if (context.deadline !== undefined)
        enqueue.raise({ type: 'ask.deadline' }, { delay: 'deadline', id: 'deadline' })
    }),
    openPresentation: assign({ presentation: () => new AbortController() }),
    adoptProvider: assign({
      provider: ({ event }) =>
        (event as Extract<AskEvent, { type: 'provider.available' }>).provider,
    }),
    releaseProvider: assign(({ context }) => {
      context.presentation?.abort(
        new UserQuestionError(
          'the provider was disposed; the ask waits for the next one',
          'ASK_ABORTED',
          {
            details: { reason: 'provider-disposed', handOver: true },
          },
        ),
      )
      return { provider: undefined, presentation: undefined }
    }),
    // Runs on entering aborted or timedOut, whose transitions always record a rejection.
    takeDownPresentation: ({ context }) => {
      context.presentation?.abort(
        (context.outcome as Extract<AskOutput, { status: 'rejected' }>).error,
      )
    },
    recordAnswer: assign((_, answer: AskUserQuestionAnswer) => ({
      outcome: { status: 'answered' as const, answer },
    })),
    recordProviderError: assign((_, error: unknown) => ({
      outcome: reject(toUserQuestionError(error)),
    })),
    recordNoProvider: assign({
      outcome: () =>
        reject(
          new UserQuestionError(
            'no question provider is registered to ask the user',
            'NO_PROVIDER',
          ),
        ),
    }),
    recordProviderGone: assign({
      provider: undefined,
      outcome: () =>
        reject(
          new UserQuestionError(
            'the provider was disposed while the ask was pending',
            'ASK_ABORTED',
            {
              details: { reason: 'provider-disposed' },
            },
          ),
        ),
    }),
    recordCallerAbort: assign({
      outcome: ({ event }) =>
        reject(
          new UserQuestionError('the caller aborted the ask', 'ASK_ABORTED', {
            cause: (event as { reason?: unknown }).reason,
            details: { reason: 'caller-aborted' },
          }),
        ),
    }),
    recordSeamClosed: assign({
      outcome: () =>
        reject(
          new UserQuestionError('the seam was closed while the ask was pending', 'SEAM_CLOSED'),
        ),
    }),
    recordTimeout: assign({
      outcome: ({ context }) =>
        reject(
          new UserQuestionError('nobody answered before the deadline', 'ASK_TIMEOUT', {
            details: { deadline: context.deadline, startedAt: context.startedAt },
          }),
        ),
    }),
  },
}).createMachine({
  id: 'ask',
  context: ({ input }) => ({
    askId: input.askId,
    questions: input.questions,
    agent: input.agent,
    provider: input.provider,
    startedAt: input.startedAt,
    deadline: input.deadline,
    waitForProviderMs: input.waitForProviderMs,
    providerGraceMs: input.providerGraceMs,
    presentation: undefined,
    outcome: undefined,
  }),
  initial: 'pending',
  output: ({ context }) => context.outcome as AskOutput,
  states: {
    pending: {
      initial: 'starting',
      entry: 'armDeadline',
      on: {
        'ask.aborted': { target: 'aborted', actions: 'recordCallerAbort' },
        'seam.closed': { target: 'aborted', actions: 'recordSeamClosed' },
        'ask.deadline': { target: 'timedOut', actions: 'recordTimeout' },
      },
      states: {
        starting: {
          always: [
            { guard: 'hasProvider', target: 'presenting' },
            { guard: 'mayWaitForProvider', target: 'waitingForProvider' },
            { target: '#ask.failed', actions: 'recordNoProvider' },
          ],
        },
        waitingForProvider: {
          initial: 'first',
          on: { 'provider.available': { target: 'presenting', actions: 'adoptProvider' } },
          states: {
            first: {
              after: { providerWait: { target: '#ask.failed', actions: 'recordNoProvider' } },
            },
            handOver: {
              after: {
                providerGrace: { target: '#ask.aborted', actions: 'recordProviderGone' },
              },
            },
          },
        },
        presenting: {
          entry: 'openPresentation',
          invoke: {
            src: 'presentToProvider',
            input: ({ context }) => ({
              provider: context.provider as UserQuestionProvider,
              request: providerRequest(context),
            }),
            onDone: {
              target: '#ask.answered',
              actions: { type: 'recordAnswer', params: ({ event }) => event.output },
            },
            onError: [
              {
                guard: {
                  type: 'isCancellation',
                  params: ({ event }: { event: { error: unknown } }) => event.error,
                },
                target: '#ask.cancelled',
                actions: {
                  type: 'recordProviderError',
                  params: ({ event }: { event: { error: unknown } }) => event.error,
                },
              },
              {
                target: '#ask.failed',
                actions: {
                  type: 'recordProviderError',
                  params: ({ event }: { event: { error: unknown } }) => event.error,
                },
              },
            ],
          },
          on: {
            'provider.disposed': [
              {
                guard: 'hasProviderGrace',
                target: 'waitingForProvider.handOver',
                actions: 'releaseProvider',
              },
              { target: '#ask.aborted', actions: 'recordProviderGone' },
            ],
          },
        },
      },
    },
    answered: { type: 'final' },
    cancelled: { type: 'final' },
    aborted: { type: 'final', entry: 'takeDownPresentation' },
    timedOut: { type: 'final', entry: 'takeDownPresentation' },
    failed: { type: 'final' },
  },
})

function providerRequest(context: AskContext): ProviderRequest {
  const request: ProviderRequest = {
    askId: context.askId,
    questions: context.questions,
    signal: (context.presentation as AbortController).signal,
  }
  if (context.agent !== undefined) request.agent = context.agent
  if (context.deadline !== undefined) request.deadline = context.deadline
  return request
}
