import {
  UserQuestionError,
  UserQuestionErrorCodes,
  toUserQuestionError,
} from '../vocabulary/index.js'
import type {
  Agent,
  AskUserQuestionItem,
  ProviderRequest,
  ProviderSettlement,
  UserQuestionProvider,
} from '../vocabulary/index.js'

/**
 * One ask shown to this seam's provider: the live handles the ask machine may
 * not hold (DESIGN §6). Kept in a `Map` by `askId` beside the actors.
 */
export interface Presentation {
  readonly askId: string
  readonly controller: AbortController
  /**
   * The provider's own promise. Whoever reads it handles it in the turn the
   * presentation opens, and first records how it settled with
   * {@link providerAnswered} or {@link providerFailed}: one chain from the
   * provider to the reader, not one more promise per ask.
   */
  readonly answer: Promise<unknown>
  /** Whether the provider's own promise has settled (as recorded by its reader). */
  providerSettled: boolean
  /** Whether the presentation is over (taken back, aborted or its settlement told). */
  ended: boolean
  /** What `answer` rejected with, made safe: the error the caller gets when the provider's ending is committed. */
  error: UserQuestionError | undefined
  /** Resolves `ProviderRequest.settlement` (once). */
  tell(settlement: ProviderSettlement): void
}

/** What a presentation shows. */
export interface PresentationSubject {
  askId: string
  questions: AskUserQuestionItem[]
  agent?: Agent
  deadline?: number
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
    if (typeof code !== 'string' || !Object.hasOwn(UserQuestionErrorCodes, code)) {
      return failed(value, `The question provider failed: ${message}`)
    }
    if (details !== undefined && (typeof details !== 'object' || details === null)) {
      return new UserQuestionError(message, code, { cause: value })
    }
    // Read once more the way the seam will: a getter that throws only later is caught here.
    void { ...details }
    return converted
  } catch {
    return failed(value)
  }
}

/**
 * Shows `subject` to `provider`: builds the request (with its signal and its
 * settlement promise) and calls `provider.ask` defensively, so a provider that
 * throws, returns no promise, or hands back a hostile value only ever rejects
 * `answer` with a safe, coded error.
 */
export function openPresentation(
  provider: UserQuestionProvider,
  subject: PresentationSubject,
): Presentation {
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
  return {
    askId: subject.askId,
    controller,
    answer: callProvider(provider, request),
    providerSettled: false,
    ended: false,
    error: undefined,
    tell,
  }
}

/** Records that the provider fulfilled its promise. */
export function providerAnswered(presentation: Presentation): void {
  presentation.providerSettled = true
}

/** Records that the provider rejected: returns the error made safe to read, kept as `presentation.error`. */
export function providerFailed(presentation: Presentation, error: unknown): UserQuestionError {
  presentation.providerSettled = true
  presentation.error = safeProviderError(error)
  return presentation.error
}

function callProvider(provider: UserQuestionProvider, request: ProviderRequest): Promise<unknown> {
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

/** Ends a presentation the provider has not settled: aborts its signal and tells it why. */
export function abortPresentation(presentation: Presentation, reason: UserQuestionError): void {
  if (presentation.ended) return
  presentation.ended = true
  if (!presentation.providerSettled) presentation.controller.abort(reason)
  presentation.tell({ status: 'refused', error: reason })
}

/** The reason a presentation loses to a settlement committed elsewhere (DESIGN §10). */
export function settledElsewhereError(): UserQuestionError {
  return new UserQuestionError(
    'another settlement of this ask was committed first',
    'ASK_ABORTED',
    {
      details: { reason: 'settled-elsewhere' },
    },
  )
}
