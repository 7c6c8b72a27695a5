import { UserQuestionError } from './errors.js'

/*
 * Reading what a caller, a provider or a wire hands over. Any of it may be a
 * Proxy whose traps throw, a revoked Proxy, or an object with throwing
 * getters: these answer instead of throwing. And what counts as filled text.
 */

export type Dict = Record<string, unknown>

/** `Array.isArray` that answers `false` for a revoked Proxy instead of throwing. */
export function isArraySafe(value: unknown): value is unknown[] {
  try {
    return Array.isArray(value)
  } catch {
    return false
  }
}

/** Whether `error` is one askseam raised (a guarded `instanceof`: a thrown Proxy may trap it). */
export function isOwnError(error: unknown): error is UserQuestionError {
  try {
    return error instanceof UserQuestionError
  } catch {
    return false
  }
}

/** A plain object, not an array; a revoked Proxy (whose every use throws) is neither. */
export function isDict(value: unknown): value is Dict {
  if (typeof value !== 'object' || value === null) return false
  try {
    return !Array.isArray(value)
  } catch {
    return false
  }
}

/** A string with something in it besides white space: an id, a label, a typed answer. */
export function isFilled(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== ''
}

/** An aborted signal's reason, or what reading it threw (a getter may). */
export function abortReason(signal: AbortSignal): unknown {
  try {
    return signal.reason
  } catch (error: unknown) {
    return error
  }
}
