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

// A value handed in by a provider or a caller may be a Proxy whose traps
// throw, a revoked Proxy, or an Error whose getters throw the error itself.
// Every read below goes through `readField` or a guarded `instanceof`, so the
// conversion itself never throws whatever it is given.
const unreadable: unique symbol = Symbol('unreadable')

function readField(value: object, key: string): unknown {
  try {
    return Reflect.get(value, key) as unknown
  } catch {
    return unreadable
  }
}

function isInstance(value: unknown, type: abstract new (...args: never[]) => unknown): boolean {
  try {
    return value instanceof type
  } catch {
    return false
  }
}

/** Whether `code` is one of the table's: any other reads as `PROVIDER_FAILED` (DESIGN §3). */
export function isErrorCode(code: unknown): code is UserQuestionErrorCode {
  return typeof code === 'string' && Object.hasOwn(UserQuestionErrorCodes, code)
}

/** A shallow, plain copy of `details`, `undefined` when there are none, or `unreadable`. */
function copyDetails(value: unknown): UserQuestionErrorDetails | undefined | typeof unreadable {
  if (value === unreadable) return unreadable
  if (typeof value !== 'object' || value === null) return undefined
  try {
    const copy: Record<string, unknown> = {}
    for (const key of Object.keys(value)) copy[key] = (value as Record<string, unknown>)[key]
    return copy
  } catch {
    return unreadable
  }
}

/** The fields of an error-shaped value, read once each; `unreadable` where a read threw. */
interface ErrorFields {
  name: unknown
  code: unknown
  message: unknown
}

function readFields(value: unknown): ErrorFields | undefined {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined
  return {
    name: readField(value, 'name'),
    code: readField(value, 'code'),
    message: readField(value, 'message'),
  }
}

/**
 * Whether `value` is a {@link UserQuestionError} with a code of the table
 * (also across realms and copies of the package). Never throws: a value whose
 * name, code or message cannot be read is not one.
 */
export function isUserQuestionError(value: unknown): value is UserQuestionError {
  const fields = readFields(value)
  if (fields === undefined || !isErrorCode(fields.code) || fields.message === unreadable) {
    return false
  }
  return isInstance(value, UserQuestionError) || fields.name === 'UserQuestionError'
}

/** At most this much of a foreign text goes into a message. */
const MAX_QUOTED = 200

function quoted(text: string): string {
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text
}

/**
 * Converts any throwable into a {@link UserQuestionError}, and never throws
 * itself. One of ours with a code of the table passes through unchanged; a
 * look-alike from another copy of the package (name `UserQuestionError`, a
 * known code) is adopted with its code, message and details, when those can
 * be read; anything else — including a `UserQuestionError` with a code
 * outside the table (DESIGN §3), or one whose fields throw — becomes
 * `fallbackCode` with the original kept as `cause`.
 */
export function toUserQuestionError(
  value: unknown,
  fallbackCode: UserQuestionErrorCode = 'PROVIDER_FAILED',
  fallbackMessage = 'The question provider failed',
): UserQuestionError {
  const fields = readFields(value)
  const fallback = (reason: string, details?: UserQuestionErrorDetails) =>
    new UserQuestionError(`${fallbackMessage}${reason}`, fallbackCode, {
      cause: value,
      ...(details === undefined ? {} : { details }),
    })
  if (fields === undefined) return fallback('')
  const ours = isInstance(value, UserQuestionError)
  const claimsOurs = ours || fields.name === 'UserQuestionError'
  const message = typeof fields.message === 'string' ? fields.message : undefined
  if (claimsOurs && isErrorCode(fields.code)) {
    const details = copyDetails(readField(value as object, 'details'))
    const readable =
      fields.message !== unreadable && details !== unreadable && fields.name !== unreadable
    if (readable) {
      if (ours) return value as UserQuestionError
      return new UserQuestionError(message ?? '', fields.code, {
        cause: value,
        ...(details === undefined ? {} : { details }),
      })
    }
    return fallback(`: its ${fields.code} error could not be read`)
  }
  if (claimsOurs && typeof fields.code === 'string') {
    const said = message === undefined ? '' : ` (${quoted(message)})`
    return fallback(`: it raised the unknown code "${quoted(fields.code)}"${said}`, {
      unknownCode: quoted(fields.code),
    })
  }
  return isInstance(value, Error) && message !== undefined ? fallback(`: ${message}`) : fallback('')
}
