import { UserQuestionError } from './errors.js'

/*
 * Reading what a caller, a provider or a wire hands over. Any of it may be a
 * Proxy whose traps throw, a revoked Proxy, or an object with throwing
 * getters: these answer instead of throwing. And what counts as filled text,
 * and as an id a store keeps (the platform's well-formed checks, and no NUL).
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

/**
 * Whether a database keeps `text` exactly as given, as every store must keep
 * the ids it finds asks and votes by (an ask's key, an agent's id, a
 * responder's id): Postgres's `text` refuses a NUL, and UTF-8 cannot hold an
 * unpaired surrogate, so a store would turn two such ids into one.
 */
export function isStorableId(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000')
}

/**
 * `text` made an id every store keeps as given (see {@link isStorableId}),
 * at most `max` code units long: each NUL and unpaired surrogate becomes
 * U+FFFD, and a cut never splits a surrogate pair.
 */
export function toStorableId(text: string, max: number): string {
  const kept = text.toWellFormed().replaceAll('\u0000', '\ufffd')
  if (kept.length <= max) return kept
  // Well formed now: a code point past U+FFFF at the last place is a pair the cut would split.
  return kept.slice(0, (kept.codePointAt(max - 1) ?? 0) > 0xffff ? max - 1 : max)
}

/** An aborted signal's reason, or what reading it threw (a getter may). */
export function abortReason(signal: AbortSignal): unknown {
  try {
    return signal.reason
  } catch (error: unknown) {
    return error
  }
}
