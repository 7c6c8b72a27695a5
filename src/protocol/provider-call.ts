import { UserQuestionError, isErrorCode, toUserQuestionError } from '../vocabulary/index.js'
import type {
  Agent,
  ApprovalCount,
  AskUserQuestionItem,
  ProviderRequest,
  ProviderSettlement,
  UserQuestionProvider,
} from '../vocabulary/index.js'

/*
 * Calling a provider: a UI is untrusted code. Whatever it throws, returns or
 * rejects with becomes one safe, coded error, and the request it is handed
 * carries the live signal and settlement the presentation machine's effects
 * drive.
 */

/** The live handles of one presentation, kept beside its actor. */
export interface ProviderCall {
  readonly controller: AbortController
  /** Resolves `ProviderRequest.settlement` (once). */
  readonly tell: (settlement: ProviderSettlement) => void
}

/** What a presentation shows: an absent part is left out of the provider's request. */
export interface CallSubject {
  askId: string
  questions: AskUserQuestionItem[]
  agent?: Agent | undefined
  deadline?: number | undefined
  answerers?: string[] | undefined
  approvals?: ApprovalCount | undefined
}

const failed = (cause: unknown, message = 'The question provider failed') =>
  new UserQuestionError(message, 'PROVIDER_FAILED', { cause })

/**
 * Turns whatever a provider threw or rejected with into a `UserQuestionError`
 * whose code, message and details can be read without throwing, with a code
 * from the table (an unknown one is `PROVIDER_FAILED`, DESIGN §3). The
 * conversion itself never throws, whatever the value's getters do.
 */
export function safeProviderError(value: unknown): UserQuestionError {
  let converted: UserQuestionError
  try {
    converted = toUserQuestionError(value)
  } catch {
    return failed(value)
  }
  try {
    const { code, message, details } = converted
    if (typeof message !== 'string') return failed(value)
    if (!isErrorCode(code)) {
      return failed(value, `The question provider failed: ${message}`)
    }
    if (details !== undefined && (typeof details !== 'object' || details === null)) {
      return new UserQuestionError(message, code, { cause: value })
    }
    // Read once more the way the seam will: a getter that throws only later is caught here.
    void { ...details }
    // The store keeps details as JSON: ones JSON cannot write (a bigint, a cycle) are dropped.
    if (details !== undefined && !writesAsJson(details)) {
      return new UserQuestionError(message, code, { cause: value })
    }
    return converted
  } catch {
    return failed(value)
  }
}

function writesAsJson(value: object): boolean {
  try {
    JSON.stringify(value)
    return true
  } catch {
    return false
  }
}

/**
 * Shows `subject` to `provider`: builds the request (with its signal and its
 * settlement promise) and calls `provider.ask` defensively, so a provider that
 * throws, returns no promise, or hands back a hostile value only ever rejects
 * the answer `answered` is handed with a safe, coded error.
 *
 * The provider runs on a turn of its own, outside the machine's transition
 * that opened the call: a UI built on XState (every one of askseam's) then
 * starts its own actors outside another actor's action. A call taken down
 * before that turn never reaches the provider.
 */
export function callProvider(
  provider: UserQuestionProvider,
  subject: CallSubject,
  answered: (answer: Promise<unknown>) => void,
): ProviderCall {
  const controller = new AbortController()
  let tell!: (settlement: ProviderSettlement) => void
  const settlement = new Promise<ProviderSettlement>((resolve) => (tell = resolve))
  const request: ProviderRequest = {
    askId: subject.askId,
    questions: subject.questions,
    signal: controller.signal,
    settlement,
  }
  if (subject.agent !== undefined) request.agent = subject.agent
  if (subject.deadline !== undefined) request.deadline = subject.deadline
  if (subject.answerers !== undefined) request.answerers = subject.answerers
  if (subject.approvals !== undefined) request.approvals = subject.approvals
  queueMicrotask(() => {
    if (controller.signal.aborted) return
    answered(
      askDefensively(provider, request).catch((error: unknown) => {
        throw safeProviderError(error)
      }),
    )
  })
  return { controller, tell }
}

function askDefensively(
  provider: UserQuestionProvider,
  request: ProviderRequest,
): Promise<unknown> {
  try {
    const pending: unknown = provider.ask(request)
    if (typeof (pending as { then?: unknown } | null)?.then !== 'function') {
      return Promise.reject(
        new UserQuestionError('the provider must return a promise from ask()', 'PROVIDER_FAILED', {
          details: { rule: 'returns-promise' },
        }),
      )
    }
    return Promise.resolve(pending)
  } catch (error: unknown) {
    return Promise.reject(error as Error)
  }
}
