import { assign, createActor, sendParent, setup } from 'xstate'
import { UserQuestionError, validateAnswer } from '../src/protocol/index.js'
import { createBenchSeam } from './plain-seam.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestionProvider,
} from '../src/protocol/index.js'

/**
 * What XState alone costs for the shape of an ask, measured beside the seam
 * (bench/core.bench.ts): the plain seam's work (bench/plain-seam.ts: the same
 * request and answer checks, signal watch, provider controller and map of
 * pending asks), with the lifecycle in two tiny machines the way the seam
 * runs it (DESIGN §6): a root actor per ask that admits (an effect reporting
 * back a turn later, as the memory store does), arms its deadline as a
 * delayed event, and invokes a child that calls the provider and commits its
 * answer (two more effects reporting back as events). No store, no fleet,
 * no policy, no telemetry: the floor any statechart seam of this shape
 * stands on.
 */

interface Call {
  questions: readonly AskUserQuestionItem[]
  provider: UserQuestionProvider
  askId: string
  signal: AbortSignal
}

type Ending = { answer: AskUserQuestionAnswer } | { error: unknown }

const presentation = setup({
  types: {
    input: {} as Call,
    context: {} as Call & { answer: AskUserQuestionAnswer | undefined },
    events: {} as
      | { type: 'answered'; answer: AskUserQuestionAnswer }
      | { type: 'failed'; error: unknown }
      | { type: 'committed' },
  },
  actions: {
    callProvider: ({ context, self }) => {
      const { provider, askId, questions, signal } = context
      provider.ask({ askId, questions: [...questions], signal }).then(
        (answer) => {
          try {
            self.send({ type: 'answered', answer: validateAnswer(questions, answer) })
          } catch (error: unknown) {
            self.send({ type: 'failed', error })
          }
        },
        (error: unknown) => self.send({ type: 'failed', error }),
      )
    },
    commit: ({ self }) => {
      void Promise.resolve().then(() => self.send({ type: 'committed' }))
    },
  },
}).createMachine({
  context: ({ input }) => ({ ...input, answer: undefined }),
  initial: 'presenting',
  states: {
    presenting: {
      entry: 'callProvider',
      on: {
        answered: {
          target: 'committing',
          actions: assign({ answer: ({ event }) => event.answer }),
        },
        failed: { actions: sendParent(({ event }) => ({ type: 'failed', error: event.error })) },
      },
    },
    committing: { entry: 'commit', on: { committed: 'done' } },
    done: { type: 'final' },
  },
  output: ({ context }) => context.answer as AskUserQuestionAnswer,
})

const ask = setup({
  types: {
    input: {} as Call & { timeoutMs: number | undefined },
    context: {} as Call & { timeoutMs: number | undefined; ending: Ending | undefined },
    events: {} as { type: 'admitted' } | { type: 'aborted' } | { type: 'failed'; error: unknown },
  },
  actors: { presentation },
  actions: {
    admit: ({ self }) => {
      void Promise.resolve().then(() => self.send({ type: 'admitted' }))
    },
  },
  delays: { deadline: ({ context }) => context.timeoutMs ?? 0 },
  guards: { hasDeadline: ({ context }) => context.timeoutMs !== undefined },
}).createMachine({
  context: ({ input }) => ({ ...input, ending: undefined }),
  initial: 'admitting',
  on: {
    aborted: {
      target: '.ended',
      actions: assign({ ending: { error: new UserQuestionError('aborted', 'ASK_ABORTED') } }),
    },
    failed: {
      target: '.ended',
      actions: assign({ ending: ({ event }) => ({ error: event.error }) }),
    },
  },
  states: {
    admitting: { entry: 'admit', on: { admitted: 'pending' } },
    pending: {
      after: {
        deadline: {
          guard: 'hasDeadline',
          target: 'ended',
          actions: assign({ ending: { error: new UserQuestionError('timeout', 'ASK_TIMEOUT') } }),
        },
      },
      invoke: {
        src: 'presentation',
        input: ({ context }) => context,
        onDone: {
          target: 'ended',
          actions: assign({
            ending: ({ event }) => ({ answer: event.output as AskUserQuestionAnswer }),
          }),
        },
      },
    },
    ended: { type: 'final' },
  },
  output: ({ context }) => context.ending as Ending,
})

/** A seam with the plain seam's checks and its lifecycle in XState: the statechart floor. */
export function createXStateFloorSeam() {
  return createBenchSeam(
    'xstate',
    ({ askId, admitted, provider, controller, pending, callerSignals }) =>
      new Promise<AskUserQuestionAnswer>((resolve, reject) => {
        const actor = createActor(ask, {
          input: {
            askId,
            questions: admitted.questions,
            provider,
            signal: controller.signal,
            timeoutMs: admitted.timeoutMs,
          },
        })
        const onAbort = () => actor.send({ type: 'aborted' })
        pending.set(askId, onAbort)
        if (admitted.signal !== undefined) callerSignals.watch(admitted.signal, onAbort)
        actor.subscribe({
          complete: () => {
            pending.delete(askId)
            if (admitted.signal !== undefined) callerSignals.unwatch(admitted.signal, onAbort)
            const ending = actor.getSnapshot().output as Ending
            if ('answer' in ending) resolve(ending.answer)
            else {
              controller.abort(ending.error)
              reject(ending.error)
            }
          },
        })
        actor.start()
      }),
  )
}
