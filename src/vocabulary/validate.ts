import { UserQuestionError } from './errors.js'
import type { UserQuestionErrorCode } from './errors.js'
import type { AskPolicy, AskUserQuestionItem, AskUserQuestionOption } from './types.js'
import { checkIntent } from './intent.js'
import { AskEndReasons } from './outcome.js'
import { readPolicy } from './policy.js'
import { abortReason, isArraySafe, isDict, isFilled, isOwnError, isStorableId } from './read.js'
import type { Dict } from './read.js'

/** The longest deadline a timer can hold; a longer one would fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647

/**
 * Whether `value` is a duration in milliseconds a timer can hold: from 0 to
 * {@link MAX_TIMEOUT_MS}, or `Infinity` (no timer at all) where `unbounded`
 * allows it. The one rule for a request's `timeoutMs` and a seam's options.
 */
export function isDuration(value: unknown, unbounded: boolean): value is number {
  if (typeof value !== 'number' || !(value >= 0)) return false
  return Number.isFinite(value) ? value <= MAX_TIMEOUT_MS : unbounded
}

function invalid(message: string, details: Dict, code: UserQuestionErrorCode = 'INVALID_REQUEST') {
  return new UserQuestionError(message, code, { details })
}

// A request may be a Proxy whose traps throw, a revoked Proxy, or an object
// with throwing getters (src/vocabulary/read.ts). Each field is read once,
// through these helpers, and a read that throws is the coded error of the
// field that could not be read.

/** Reads `holder[key]` once; a throwing read is `INVALID_REQUEST` naming `field`. */
function readRequestField(
  holder: object,
  key: string,
  field: string,
  questionId?: string,
): unknown {
  try {
    return Reflect.get(holder, key) as unknown
  } catch (error: unknown) {
    throw new UserQuestionError(`${field} could not be read`, 'INVALID_REQUEST', {
      cause: error,
      details: questionId === undefined ? { field } : { questionId, field },
    })
  }
}

/**
 * The elements of an array as an ordinary array, read once each, or a throw
 * naming the first hole (`[, q]`, `new Array(3)`) or unreadable element.
 */
function readElements(array: unknown[], field: string, questionId?: string): unknown[] {
  const at = (index: number) => `${field}[${index}]`
  const where = (index: number) =>
    questionId === undefined ? { field: at(index) } : { questionId, field: at(index) }
  const length = readRequestField(array, 'length', `${field}.length`, questionId)
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    throw invalid(`${field} has no usable length`, where(0))
  }
  const elements: unknown[] = []
  for (let index = 0; index < length; index++) {
    let present: boolean
    try {
      present = Object.hasOwn(array, index)
    } catch (error: unknown) {
      throw new UserQuestionError(`${at(index)} could not be read`, 'INVALID_REQUEST', {
        cause: error,
        details: where(index),
      })
    }
    if (!present) {
      throw invalid(`${at(index)} is missing: ${field} is a sparse array with a hole there`, {
        ...where(index),
        rule: 'sparse-array',
      })
    }
    elements.push(readRequestField(array, String(index), at(index), questionId))
  }
  return elements
}

/**
 * Bidirectional embedding, override and isolate controls (U+202A–U+202E,
 * U+2066–U+2069). They reorder how the text around them is displayed, so a
 * label holding one can show the user a different word than the one the
 * model receives back ("Trojan Source", CVE-2021-42574). A label or an id has
 * no use for them: right-to-left text displays correctly without them.
 */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u

/** Invisible characters: format controls and default-ignorable code points (zero-width, joiners, variation selectors). */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu

/**
 * What a label looks like on screen, for telling look-alikes apart:
 * compatibility-normalised (NFKC folds full-width letters, ligatures and
 * no-break spaces), invisible characters removed, every run of white space
 * one space, trimmed.
 */
export function displayedForm(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '').replace(/\s+/gu, ' ').trim()
}

function refuseBidiControls(text: string, field: string, questionId?: string): void {
  if (!BIDI_CONTROL.test(text)) return
  throw invalid(
    `${field} holds a bidirectional override or isolate control character, which would make it display differently from its value`,
    questionId === undefined
      ? { field, rule: 'bidi-control' }
      : { questionId, field, rule: 'bidi-control' },
  )
}

function copyOption(value: unknown, at: string, questionId: string): AskUserQuestionOption {
  if (!isDict(value)) throw invalid(`${at} must be an object`, { questionId, field: at })
  const label = readRequestField(value, 'label', `${at}.label`, questionId)
  if (!isFilled(label)) {
    throw invalid(`${at}.label must be a non-blank string`, { questionId, field: `${at}.label` })
  }
  refuseBidiControls(label, `${at}.label`, questionId)
  const option: AskUserQuestionOption = { label }
  const description = readRequestField(value, 'description', `${at}.description`, questionId)
  if (description !== undefined) {
    if (typeof description !== 'string') {
      throw invalid(`${at}.description must be a string`, {
        questionId,
        field: `${at}.description`,
      })
    }
    option.description = description
  }
  return option
}

function optionalText(item: Dict, key: string, at: string, questionId: string): string | undefined {
  const value = readRequestField(item, key, `${at}.${key}`, questionId)
  if (value === undefined) return undefined
  if (typeof value !== 'string') {
    throw invalid(`${at}.${key} must be a string`, { questionId, field: `${at}.${key}` })
  }
  return value
}

function copyOptions(raw: unknown, at: string, id: string): AskUserQuestionOption[] {
  if (!isArraySafe(raw)) {
    throw invalid(`${at}.options must be an array`, { questionId: id, field: `${at}.options` })
  }
  const elements = readElements(raw, `${at}.options`, id)
  const labels = new Map<string, string>()
  return elements.map((element, optionIndex) => {
    const field = `${at}.options[${optionIndex}]`
    const option = copyOption(element, field, id)
    const shown = displayedForm(option.label)
    const earlier = labels.get(shown)
    if (earlier === option.label) {
      throw invalid(`${at} offers the label "${option.label}" twice`, {
        questionId: id,
        field: `${field}.label`,
      })
    }
    if (earlier !== undefined) {
      throw invalid(
        `${at} offers two labels that display the same ("${earlier}" and "${option.label}" differ only in invisible characters, spacing or compatibility forms)`,
        { questionId: id, field: `${field}.label`, rule: 'look-alike-label' },
      )
    }
    labels.set(shown, option.label)
    return option
  })
}

/** Checks one question's shape and returns a defensive copy of its known fields. */
function copyQuestion(value: unknown, index: number, seen: Set<string>): AskUserQuestionItem {
  const at = `questions[${index}]`
  if (!isDict(value)) throw invalid(`${at} must be an object`, { field: at })
  const id = readRequestField(value, 'id', `${at}.id`)
  if (!isFilled(id)) throw invalid(`${at}.id must be a non-blank string`, { field: `${at}.id` })
  refuseBidiControls(id, `${at}.id`)
  if (seen.has(id)) {
    throw invalid(`${at}.id "${id}" is used by another question`, {
      questionId: id,
      field: `${at}.id`,
    })
  }
  seen.add(id)
  const question = readRequestField(value, 'question', `${at}.question`, id)
  if (!isFilled(question)) {
    throw invalid(`${at}.question must be a non-blank string`, {
      questionId: id,
      field: `${at}.question`,
    })
  }
  const item: AskUserQuestionItem = { id, question }
  const detail = optionalText(value, 'detail', at, id)
  if (detail !== undefined) item.detail = detail
  const header = optionalText(value, 'header', at, id)
  if (header !== undefined) item.header = header
  const options = readRequestField(value, 'options', `${at}.options`, id)
  if (options !== undefined) item.options = copyOptions(options, at, id)
  const multiSelect = readRequestField(value, 'multiSelect', `${at}.multiSelect`, id)
  if (multiSelect !== undefined) {
    if (typeof multiSelect !== 'boolean') {
      throw invalid(`${at}.multiSelect must be a boolean`, {
        questionId: id,
        field: `${at}.multiSelect`,
      })
    }
    item.multiSelect = multiSelect
  }
  const intent = readRequestField(value, 'intent', `${at}.intent`, id)
  if (intent !== undefined) {
    const kind = isDict(intent) ? readRequestField(intent, 'kind', `${at}.intent.kind`, id) : 0
    const approve = isDict(intent)
      ? readRequestField(intent, 'approve', `${at}.intent.approve`, id)
      : 0
    if (typeof kind !== 'string' || typeof approve !== 'string') {
      throw invalid(`${at}.intent must be { kind: 'plan-review', approve: string }`, {
        questionId: id,
        field: `${at}.intent`,
      })
    }
    item.intent = { kind: kind as 'plan-review', approve }
  }
  return item
}

/** A request that passed {@link validateRequest}: a defensive, deeply frozen copy of the questions. */
export interface ValidatedRequest {
  questions: AskUserQuestionItem[]
  agent?: unknown
  signal?: AbortSignal
  timeoutMs?: number
  key?: string
  policy?: AskPolicy
}

/** The longest `key` a request may carry, in UTF-16 code units. */
export const MAX_KEY_LENGTH = 512

/** Hooks into {@link validateRequest} for the checks that need the seam. */
export interface ValidateRequestOptions {
  /** Runs after the empty check and before the shape checks (DESIGN §3 order). */
  checkCaller?: (agent: unknown) => void
}

function checkAbortSignal(value: unknown): AbortSignal {
  const notSignal = () => invalid('signal must be an AbortSignal', { field: 'signal' })
  if (typeof value !== 'object' || value === null) throw notSignal()
  const aborted = readRequestField(value, 'aborted', 'signal.aborted')
  const add = readRequestField(value, 'addEventListener', 'signal.addEventListener')
  const remove = readRequestField(value, 'removeEventListener', 'signal.removeEventListener')
  if (typeof aborted !== 'boolean' || typeof add !== 'function' || typeof remove !== 'function') {
    throw notSignal()
  }
  return value as AbortSignal
}

/**
 * The first check of DESIGN §3, for the seam to run before anything else:
 * throws `ASK_ABORTED` (`details.reason: 'caller-aborted'`, the signal's
 * reason as `cause`) when the request's signal has already aborted, and
 * `INVALID_REQUEST` naming the field when the signal or its `aborted` cannot
 * be read (a throwing getter, a Proxy). Anything else about the request is
 * left to {@link validateRequest}.
 */
export function checkNotAborted(request: unknown): void {
  if (!isDict(request)) return
  const signal = readRequestField(request, 'signal', 'signal')
  if (typeof signal !== 'object' || signal === null) return
  if (readRequestField(signal, 'aborted', 'signal.aborted') !== true) return
  throw new UserQuestionError('the caller aborted the ask before it started', 'ASK_ABORTED', {
    cause: abortReason(signal as AbortSignal),
    details: { reason: AskEndReasons.CALLER_ABORTED },
  })
}

/**
 * Checks a request and returns a defensive copy of it, or throws the
 * request-side `UserQuestionError`: `INVALID_REQUEST`, `EMPTY_QUESTIONS` or
 * `BAD_INTENT`, in the order of DESIGN §3. Never throws anything else: each
 * field is read once, and a field whose read throws (a throwing getter, a
 * Proxy, a revoked Proxy) is `INVALID_REQUEST` naming it, as is a hole in a
 * sparse array. Labels and ids may not hold bidirectional override or
 * isolate controls, and two options of one question may not display the same
 * (see {@link displayedForm}).
 *
 * @example
 * ```ts
 * validateRequest({ questions: [] }) // throws EMPTY_QUESTIONS
 * ```
 */
export function validateRequest(
  request: unknown,
  options: ValidateRequestOptions = {},
): ValidatedRequest {
  if (!isDict(request)) throw invalid('the request must be an object', { field: 'request' })
  const questions = readRequestField(request, 'questions', 'questions')
  const isList = isArraySafe(questions)
  if (isList && readRequestField(questions, 'length', 'questions.length') === 0) {
    throw invalid(
      'questions is empty: ask at least one question',
      { field: 'questions' },
      'EMPTY_QUESTIONS',
    )
  }
  const agent = readRequestField(request, 'agent', 'agent')
  try {
    options.checkCaller?.(agent)
  } catch (error: unknown) {
    // The caller check reads the agent; an agent whose fields throw is a malformed field.
    if (isOwnError(error)) throw error
    throw new UserQuestionError('agent could not be read', 'INVALID_REQUEST', {
      cause: error,
      details: { field: 'agent' },
    })
  }
  if (!isList) throw invalid('questions must be an array', { field: 'questions' })
  const seen = new Set<string>()
  const copied = readElements(questions, 'questions').map((question, index) =>
    copyQuestion(question, index, seen),
  )
  const result: ValidatedRequest = { questions: copied }
  const signal = readRequestField(request, 'signal', 'signal')
  if (signal !== undefined) result.signal = checkAbortSignal(signal)
  const timeoutMs = readRequestField(request, 'timeoutMs', 'timeoutMs')
  if (timeoutMs !== undefined) {
    if (!isDuration(timeoutMs, true)) {
      throw invalid(
        `timeoutMs must be a number from 0 to ${MAX_TIMEOUT_MS}, or Infinity to wait indefinitely`,
        { field: 'timeoutMs' },
      )
    }
    result.timeoutMs = timeoutMs
  }
  const key = readRequestField(request, 'key', 'key')
  if (key !== undefined) {
    if (!isFilled(key) || key.length > MAX_KEY_LENGTH) {
      throw invalid(`key must be a non-blank string of at most ${MAX_KEY_LENGTH} characters`, {
        field: 'key',
      })
    }
    if (!isStorableId(key)) {
      throw invalid(
        'key must not hold a NUL or an unpaired surrogate: no store keeps one as given',
        {
          field: 'key',
        },
      )
    }
    result.key = key
  }
  if (agent !== undefined) result.agent = agent
  const policy = readPolicy(
    readRequestField(request, 'answerers', 'answerers'),
    readRequestField(request, 'approvals', 'approvals'),
    copied,
  )
  if (policy !== undefined) result.policy = policy
  copied.forEach(checkIntent)
  // The copy is what answers are checked against, what providers are shown and
  // what pending() lists: frozen, so no holder can change what was asked.
  for (const item of copied) {
    for (const option of item.options ?? []) Object.freeze(option)
    if (item.options !== undefined) Object.freeze(item.options)
    if (item.intent !== undefined) Object.freeze(item.intent)
    Object.freeze(item)
  }
  Object.freeze(copied)
  return result
}
