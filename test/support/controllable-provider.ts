import { expect } from 'vitest'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type {
  UserQuestions,
  UserQuestionsOptions,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  ProviderAnswer,
  ProviderRequest,
  ProviderSettlement,
  UserQuestionErrorCode,
  UserQuestionProvider,
} from '../../src/protocol/index.js'

/** One call the seam made to a {@link ControllableProvider}, settled by the test. */
export interface ProviderCall {
  readonly request: ProviderRequest
  /** Settles the provider's promise with `answer`, which may be malformed on purpose. */
  resolve(answer: unknown): void
  /** Settles the provider's promise with a rejection. */
  reject(error: unknown): void
  /** Whether the test already settled this call. */
  readonly settled: boolean
  /** What the seam told the provider became of its answer (`request.settlement`), once it has. */
  readonly verdict: ProviderSettlement | undefined
}

/** A provider whose every ask is recorded and settled by the test. */
export interface ControllableProvider extends UserQuestionProvider {
  /** Every request the seam presented, oldest first. */
  readonly calls: readonly ProviderCall[]
  /** The `index`th call (0-based); resolves when it arrives, at once if it already has. */
  call(index: number): Promise<ProviderCall>
  /** The most recent call; fails the test if there is none. */
  last(): ProviderCall
}

/**
 * Creates a provider that records each `ProviderRequest` and leaves it
 * pending until the test settles it, so a test controls the order in which
 * answers, cancels, aborts, deadlines and disposals happen.
 */
export function createControllableProvider(): ControllableProvider {
  const calls: ProviderCall[] = []
  const waiters = new Map<number, Array<(call: ProviderCall) => void>>()
  return {
    calls,
    ask(request) {
      return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
        let settled = false
        let verdict: ProviderSettlement | undefined
        void request.settlement?.then((told) => (verdict = told))
        const call: ProviderCall = {
          request,
          resolve(answer) {
            settled = true
            resolve(answer as AskUserQuestionAnswer)
          },
          reject(error) {
            settled = true
            reject(error)
          },
          get settled() {
            return settled
          },
          get verdict() {
            return verdict
          },
        }
        calls.push(call)
        const index = calls.length - 1
        for (const wake of waiters.get(index) ?? []) wake(call)
        waiters.delete(index)
      })
    },
    call(index) {
      const existing = calls[index]
      if (existing !== undefined) return Promise.resolve(existing)
      return new Promise((resolve) => {
        const list = waiters.get(index) ?? []
        list.push(resolve)
        waiters.set(index, list)
      })
    },
    last() {
      const call = calls.at(-1)
      if (call === undefined) throw new Error('the provider was never asked')
      return call
    },
  }
}

/** The settlement of a promise, observed without letting a rejection go unhandled. */
export type Settlement<T> =
  | { status: 'pending' }
  | { status: 'fulfilled'; value: T }
  | { status: 'rejected'; reason: unknown }

/** A seam with a controllable provider registered; `dispose` unregisters it. */
export function seamWithProvider(options: UserQuestionsOptions = {}): {
  seam: UserQuestions
  provider: ControllableProvider
  dispose: () => void
} {
  const seam = createUserQuestions(options)
  const provider = createControllableProvider()
  const dispose = seam.registerProvider(provider)
  return { seam, provider, dispose }
}

/**
 * Watches `promise` from now on: the rejection is handled at once (so a test
 * that inspects it later never trips the unhandled-rejection check), and
 * `count` says how many times a settlement callback ran.
 */
export function track<T>(promise: Promise<T>): {
  readonly settlement: Settlement<T>
  readonly count: number
  readonly done: Promise<Settlement<T>>
} {
  let settlement: Settlement<T> = { status: 'pending' }
  let count = 0
  const done = promise.then(
    (value) => {
      count += 1
      settlement = { status: 'fulfilled', value }
      return settlement
    },
    (reason: unknown) => {
      count += 1
      settlement = { status: 'rejected', reason }
      return settlement
    },
  )
  return {
    get settlement() {
      return settlement
    },
    get count() {
      return count
    },
    done,
  }
}

/** Awaits `promise`, expects it to reject with a `UserQuestionError` of `code`, and returns it. */
export async function rejectionOf(
  promise: Promise<unknown>,
  code: UserQuestionErrorCode,
): Promise<UserQuestionError> {
  const outcome = await promise.then(
    (value) => ({ ok: true as const, value }),
    (reason: unknown) => ({ ok: false as const, reason }),
  )
  if (outcome.ok) {
    expect.fail(`expected ${code}, but it resolved with ${JSON.stringify(outcome.value)}`)
  }
  expect(outcome.reason).toBeInstanceOf(UserQuestionError)
  const error = outcome.reason as UserQuestionError
  expect(error.code, error.message).toBe(code)
  return error
}

/** Expects a synchronous call to throw a `UserQuestionError` of `code`, and returns it. */
export function thrownBy(run: () => unknown, code: UserQuestionErrorCode): UserQuestionError {
  let caught: unknown
  try {
    run()
  } catch (error: unknown) {
    caught = error
  }
  if (caught === undefined) expect.fail(`expected ${code}, but nothing was thrown`)
  expect(caught).toBeInstanceOf(UserQuestionError)
  const error = caught as UserQuestionError
  expect(error.code, error.message).toBe(code)
  return error
}

/** The skip-everything answer: `{ id, selected: [] }` for every question. */
export function skipAll(questions: readonly AskUserQuestionItem[]): AskUserQuestionAnswer {
  return { answers: questions.map(({ id }) => ({ id, selected: [] })) }
}

/** A small single-select question with two options. */
export function choice(id: string, labels: readonly string[] = ['Yes', 'No']): AskUserQuestionItem {
  return {
    id,
    question: `Question ${id}?`,
    options: labels.map((label) => ({ label })),
  }
}

/**
 * A provider that gives `answers` in turn, one per time it is shown an ask,
 * at once; once they run out, the human dismisses the ask (`ASK_CANCELLED`).
 * Refill `answers` between asks.
 */
export function queuedProvider(answers: ProviderAnswer[]): UserQuestionProvider {
  return {
    ask: () => {
      const next = answers.shift()
      return next === undefined
        ? Promise.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
        : Promise.resolve(next)
    },
  }
}
