import { createAbortFanout } from '../src/protocol/abort-fanout.js'
import { UserQuestionError, validateAnswer, validateRequest } from '../src/protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  UserQuestionProvider,
  ValidatedRequest,
} from '../src/protocol/index.js'

/** One admitted ask of a bench seam, and what the seam lends its lifecycle. */
export interface BenchAsk {
  askId: string
  admitted: ValidatedRequest
  provider: UserQuestionProvider
  /** The provider's signal's controller. */
  controller: AbortController
  /** The pending asks, each with how to end it (close() calls every one). */
  pending: Map<string, () => void>
  /** One listener per caller signal, however many asks share it. */
  callerSignals: ReturnType<typeof createAbortFanout<() => void>>
}

/**
 * What every bench seam shares: the provider slot, the map of pending asks,
 * the watch of callers' signals, and the request check; `lifecycle` runs
 * each admitted ask to its answer or error.
 */
export function createBenchSeam(
  prefix: string,
  lifecycle: (ask: BenchAsk) => Promise<AskUserQuestionAnswer>,
) {
  let provider: UserQuestionProvider | undefined
  let counter = 0
  const pending = new Map<string, () => void>()
  const callerSignals = createAbortFanout<() => void>((onAbort) => onAbort())
  return {
    registerProvider(next: UserQuestionProvider) {
      provider = next
      return () => {
        provider = undefined
      }
    },
    pendingCount: () => pending.size,
    async close() {
      for (const end of [...pending.values()]) end()
    },
    ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> {
      let admitted
      try {
        admitted = validateRequest(request)
      } catch (error: unknown) {
        return Promise.reject(error)
      }
      const current = provider
      if (current === undefined)
        return Promise.reject(new UserQuestionError('no provider', 'NO_PROVIDER'))
      return lifecycle({
        askId: `${prefix}-${++counter}`,
        admitted,
        provider: current,
        controller: new AbortController(),
        pending,
        callerSignals,
      })
    },
  }
}

/**
 * The cost floor the seam is measured against: the same request and answer
 * checks, a deadline timer only when there is one, the same one-listener-
 * per-signal watch of the caller's signal, a controller for the provider's
 * signal, and a map of pending asks — with plain promises and no statecharts.
 */
export function createPlainSeam() {
  return createBenchSeam(
    'plain',
    ({ askId, admitted, provider, controller, pending, callerSignals }) =>
      new Promise<AskUserQuestionAnswer>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined
        const settle = (error: unknown, answer?: AskUserQuestionAnswer) => {
          if (!pending.delete(askId)) return
          if (timer !== undefined) clearTimeout(timer)
          if (admitted.signal !== undefined) callerSignals.unwatch(admitted.signal, onAbort)
          if (answer !== undefined) resolve(answer)
          else {
            controller.abort(error)
            reject(error)
          }
        }
        const onAbort = () => settle(new UserQuestionError('aborted', 'ASK_ABORTED'))
        pending.set(askId, onAbort)
        if (admitted.signal !== undefined) callerSignals.watch(admitted.signal, onAbort)
        if (admitted.timeoutMs !== undefined) {
          timer = setTimeout(
            () => settle(new UserQuestionError('timeout', 'ASK_TIMEOUT')),
            admitted.timeoutMs,
          )
        }
        provider.ask({ askId, questions: admitted.questions, signal: controller.signal }).then(
          (answer) => {
            try {
              settle(undefined, validateAnswer(admitted.questions, answer))
            } catch (error: unknown) {
              settle(error)
            }
          },
          (error: unknown) => settle(error),
        )
      }),
  )
}
