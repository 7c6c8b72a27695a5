/**
 * Every code a {@link UserQuestionError} can carry, with when it is raised.
 * Codes are data: there is one error class and never a subclass per code.
 */
export const UserQuestionErrorCodes = {
  /** The caller's signal aborted, or the provider went away with no hand-over. */
  ASK_ABORTED: 'ASK_ABORTED',
  /** `questions` is empty. */
  EMPTY_QUESTIONS: 'EMPTY_QUESTIONS',
  /** The request is malformed: wrong types, blank text, duplicate ids or labels. */
  INVALID_REQUEST: 'INVALID_REQUEST',
  /** `agent` was given but is not the registry's exact live instance. */
  CALLER_NOT_LIVE: 'CALLER_NOT_LIVE',
  /** `agent` is live but owned by another agent: a subagent has no human to ask. */
  DELEGATED_CALLER: 'DELEGATED_CALLER',
  /** An intent names no option of its question, or sits on a question without `detail`. */
  BAD_INTENT: 'BAD_INTENT',
  /** No provider is registered, and none arrived in time. */
  NO_PROVIDER: 'NO_PROVIDER',
  /** `registerProvider` was called while another provider is active. */
  DUPLICATE_PROVIDER: 'DUPLICATE_PROVIDER',
  /** The UI dismissed the whole batch. */
  ASK_CANCELLED: 'ASK_CANCELLED',
  /** The ask's deadline passed. Elapsed time is never an answer. */
  ASK_TIMEOUT: 'ASK_TIMEOUT',
  /** The provider's answer does not fit the questions. */
  BAD_ANSWER: 'BAD_ANSWER',
  /** The provider threw or rejected with something that is not a `UserQuestionError`. */
  PROVIDER_FAILED: 'PROVIDER_FAILED',
  /** `close()` ended the ask, or work arrived after `close()`. */
  SEAM_CLOSED: 'SEAM_CLOSED',
  /** The ask's store could not be written or read (unreachable, corrupt row); `cause` keeps the driver's error. */
  STORE_FAILED: 'STORE_FAILED',
} as const

/** One of the stable codes of {@link UserQuestionErrorCodes}. */
export type UserQuestionErrorCode = keyof typeof UserQuestionErrorCodes

/** Structured facts about an error, safe to put on a wire. */
export type UserQuestionErrorDetails = Readonly<Record<string, unknown>>

/** Options of {@link HarnessError} and {@link UserQuestionError}. */
export interface HarnessErrorOptions {
  /** The underlying throwable, kept as the standard `cause`. */
  cause?: unknown
  /** Structured facts, e.g. `{ questionId, rule }` or `{ reason }`. */
  details?: UserQuestionErrorDetails
}

/**
 * Base class of every error askseam raises on purpose: a message, a stable
 * string `code`, the standard `cause`, and optional `details`.
 */
export class HarnessError extends Error {
  /** A stable, machine-readable code. */
  readonly code: string
  /** Structured facts about the error. */
  readonly details: UserQuestionErrorDetails | undefined

  constructor(message: string, code: string, options: HarnessErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined)
    this.name = 'HarnessError'
    this.code = code
    this.details = options.details
  }

  /** A plain object that survives `JSON.stringify`, a tool runner or a wire. */
  toJSON(): { name: string; code: string; message: string; details?: UserQuestionErrorDetails } {
    return this.details === undefined
      ? { name: this.name, code: this.code, message: this.message }
      : { name: this.name, code: this.code, message: this.message, details: this.details }
  }
}

/**
 * The one error class of the question seam. Constructed as
 * `new UserQuestionError(message, code, { cause?, details? })`.
 *
 * @example
 * ```ts
 * throw new UserQuestionError('The user closed the dialog', 'ASK_CANCELLED')
 * ```
 */
export class UserQuestionError extends HarnessError {
  declare readonly code: UserQuestionErrorCode

  constructor(message: string, code: UserQuestionErrorCode, options: HarnessErrorOptions = {}) {
    super(message, code, options)
    this.name = 'UserQuestionError'
  }
}

/** Whether `value` is a {@link UserQuestionError} (also across realms and copies of the package). */
export function isUserQuestionError(value: unknown): value is UserQuestionError {
  if (value instanceof UserQuestionError) return true
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as { name?: unknown; code?: unknown }
  return (
    candidate.name === 'UserQuestionError' &&
    typeof candidate.code === 'string' &&
    Object.hasOwn(UserQuestionErrorCodes, candidate.code)
  )
}

/**
 * Converts any throwable into a {@link UserQuestionError}: one of ours passes
 * through unchanged, anything else becomes `fallbackCode` with the original
 * kept as `cause`.
 */
export function toUserQuestionError(
  value: unknown,
  fallbackCode: UserQuestionErrorCode = 'PROVIDER_FAILED',
  fallbackMessage = 'The question provider failed',
): UserQuestionError {
  if (value instanceof UserQuestionError) return value
  if (isUserQuestionError(value)) {
    // One from another copy of the package: keep its code, adopt our class.
    const foreign = value as { message?: unknown; details?: unknown }
    const details =
      typeof foreign.details === 'object' && foreign.details !== null
        ? (foreign.details as UserQuestionErrorDetails)
        : undefined
    return new UserQuestionError(String(foreign.message ?? ''), value.code, {
      cause: value,
      ...(details === undefined ? {} : { details }),
    })
  }
  const reason = value instanceof Error ? `: ${value.message}` : ''
  return new UserQuestionError(`${fallbackMessage}${reason}`, fallbackCode, { cause: value })
}
