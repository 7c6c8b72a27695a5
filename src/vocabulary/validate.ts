import { UserQuestionError } from './errors.js'
import type { UserQuestionErrorCode } from './errors.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionAnswerItem,
  AskUserQuestionItem,
  AskUserQuestionOption,
} from './types.js'
import { checkIntent } from './intent.js'

/** The longest deadline a timer can hold; a longer one would fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647

type Dict = Record<string, unknown>

function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isFilled(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== ''
}

function invalid(message: string, details: Dict, code: UserQuestionErrorCode = 'INVALID_REQUEST') {
  return new UserQuestionError(message, code, { details })
}

function copyOption(value: unknown, at: string, questionId: string): AskUserQuestionOption {
  if (!isDict(value)) throw invalid(`${at} must be an object`, { questionId, field: at })
  if (!isFilled(value.label)) {
    throw invalid(`${at}.label must be a non-blank string`, { questionId, field: `${at}.label` })
  }
  const option: AskUserQuestionOption = { label: value.label }
  if (value.description !== undefined) {
    if (typeof value.description !== 'string') {
      throw invalid(`${at}.description must be a string`, {
        questionId,
        field: `${at}.description`,
      })
    }
    option.description = value.description
  }
  return option
}

function optionalText(item: Dict, key: string, at: string, questionId: string): string | undefined {
  const value = item[key]
  if (value === undefined) return undefined
  if (typeof value !== 'string') {
    throw invalid(`${at}.${key} must be a string`, { questionId, field: `${at}.${key}` })
  }
  return value
}

/** Checks one question's shape and returns a defensive copy of its known fields. */
function copyQuestion(value: unknown, index: number, seen: Set<string>): AskUserQuestionItem {
  const at = `questions[${index}]`
  if (!isDict(value)) throw invalid(`${at} must be an object`, { field: at })
  if (!isFilled(value.id))
    throw invalid(`${at}.id must be a non-blank string`, { field: `${at}.id` })
  const id = value.id
  if (seen.has(id)) {
    throw invalid(`${at}.id "${id}" is used by another question`, {
      questionId: id,
      field: `${at}.id`,
    })
  }
  seen.add(id)
  if (!isFilled(value.question)) {
    throw invalid(`${at}.question must be a non-blank string`, {
      questionId: id,
      field: `${at}.question`,
    })
  }
  const item: AskUserQuestionItem = { id, question: value.question }
  const detail = optionalText(value, 'detail', at, id)
  if (detail !== undefined) item.detail = detail
  const header = optionalText(value, 'header', at, id)
  if (header !== undefined) item.header = header
  if (value.options !== undefined) {
    if (!Array.isArray(value.options)) {
      throw invalid(`${at}.options must be an array`, { questionId: id, field: `${at}.options` })
    }
    const labels = new Set<string>()
    item.options = value.options.map((raw: unknown, optionIndex) => {
      const option = copyOption(raw, `${at}.options[${optionIndex}]`, id)
      if (labels.has(option.label)) {
        throw invalid(`${at} offers the label "${option.label}" twice`, {
          questionId: id,
          field: `${at}.options[${optionIndex}].label`,
        })
      }
      labels.add(option.label)
      return option
    })
  }
  if (value.multiSelect !== undefined) {
    if (typeof value.multiSelect !== 'boolean') {
      throw invalid(`${at}.multiSelect must be a boolean`, {
        questionId: id,
        field: `${at}.multiSelect`,
      })
    }
    item.multiSelect = value.multiSelect
  }
  if (value.intent !== undefined) {
    const intent = value.intent
    if (!isDict(intent) || typeof intent.kind !== 'string' || typeof intent.approve !== 'string') {
      throw invalid(`${at}.intent must be { kind: 'plan-review', approve: string }`, {
        questionId: id,
        field: `${at}.intent`,
      })
    }
    item.intent = { kind: intent.kind as 'plan-review', approve: intent.approve }
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
}

/** The longest `key` a request may carry, in UTF-16 code units. */
export const MAX_KEY_LENGTH = 512

/** Hooks into {@link validateRequest} for the checks that need the seam. */
export interface ValidateRequestOptions {
  /** Runs after the empty check and before the shape checks (DESIGN §3 order). */
  checkCaller?: (agent: unknown) => void
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    isDict(value) &&
    typeof value.aborted === 'boolean' &&
    typeof value.addEventListener === 'function' &&
    typeof value.removeEventListener === 'function'
  )
}

/**
 * Checks a request and returns a defensive copy of it, or throws the
 * request-side `UserQuestionError`: `INVALID_REQUEST`, `EMPTY_QUESTIONS` or
 * `BAD_INTENT`, in the order of DESIGN §3.
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
  const questions = request.questions
  if (Array.isArray(questions) && questions.length === 0) {
    throw invalid(
      'questions is empty: ask at least one question',
      { field: 'questions' },
      'EMPTY_QUESTIONS',
    )
  }
  options.checkCaller?.(request.agent)
  if (!Array.isArray(questions)) throw invalid('questions must be an array', { field: 'questions' })
  const seen = new Set<string>()
  const copied = questions.map((question: unknown, index) => copyQuestion(question, index, seen))
  const result: ValidatedRequest = { questions: copied }
  if (request.signal !== undefined) {
    if (!isAbortSignal(request.signal))
      throw invalid('signal must be an AbortSignal', { field: 'signal' })
    result.signal = request.signal
  }
  if (request.timeoutMs !== undefined) {
    const timeoutMs = request.timeoutMs
    if (
      typeof timeoutMs !== 'number' ||
      Number.isNaN(timeoutMs) ||
      timeoutMs < 0 ||
      (Number.isFinite(timeoutMs) && timeoutMs > MAX_TIMEOUT_MS)
    ) {
      throw invalid(
        `timeoutMs must be a number from 0 to ${MAX_TIMEOUT_MS}, or Infinity to wait indefinitely`,
        { field: 'timeoutMs' },
      )
    }
    result.timeoutMs = timeoutMs
  }
  if (request.key !== undefined) {
    const key = request.key
    if (typeof key !== 'string' || key.trim() === '' || key.length > MAX_KEY_LENGTH) {
      throw invalid(`key must be a non-blank string of at most ${MAX_KEY_LENGTH} characters`, {
        field: 'key',
      })
    }
    result.key = key
  }
  if (request.agent !== undefined) result.agent = request.agent
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

function badAnswer(message: string, rule: string, questionId?: string): UserQuestionError {
  return new UserQuestionError(message, 'BAD_ANSWER', {
    details: questionId === undefined ? { rule } : { questionId, rule },
  })
}

/**
 * Checks a provider's answer against the questions and returns it in the
 * canonical encoding of DESIGN §5 (question order, option order, `custom` only
 * when present), or throws `BAD_ANSWER` naming the question and the rule.
 */
export function validateAnswer(
  questions: readonly AskUserQuestionItem[],
  answer: unknown,
): AskUserQuestionAnswer {
  if (!isDict(answer) || !Array.isArray(answer.answers)) {
    throw badAnswer('the answer must be an object with an answers array', 'shape')
  }
  const byId = new Map<string, AskUserQuestionItem>()
  for (const question of questions) byId.set(question.id, question)
  const given = new Map<string, AskUserQuestionAnswerItem>()
  for (const raw of answer.answers as unknown[]) {
    if (!isDict(raw) || typeof raw.id !== 'string') {
      throw badAnswer('each answer must be an object with a string id', 'shape')
    }
    const question = byId.get(raw.id)
    if (question === undefined) {
      throw badAnswer(
        `the answer names question "${raw.id}", which was not asked`,
        'unknown-id',
        raw.id,
      )
    }
    if (given.has(raw.id))
      throw badAnswer(`question "${raw.id}" is answered twice`, 'duplicate-id', raw.id)
    given.set(raw.id, canonicalItem(question, raw))
  }
  return {
    answers: questions.map((question) => {
      const item = given.get(question.id)
      if (item === undefined) {
        throw badAnswer(
          `question "${question.id}" has no answer (a skip is { id, selected: [] })`,
          'missing-answer',
          question.id,
        )
      }
      return item
    }),
  }
}

function canonicalItem(question: AskUserQuestionItem, raw: Dict): AskUserQuestionAnswerItem {
  const id = question.id
  if (!Array.isArray(raw.selected) || !raw.selected.every((label) => typeof label === 'string')) {
    throw badAnswer(`question "${id}": selected must be an array of labels`, 'shape', id)
  }
  const selected = raw.selected as string[]
  const offered = (question.options ?? []).map((option) => option.label)
  const chosen = new Set<string>()
  for (const label of selected) {
    if (!offered.includes(label)) {
      throw badAnswer(`question "${id}": "${label}" is not one of its options`, 'unknown-label', id)
    }
    if (chosen.has(label))
      throw badAnswer(`question "${id}": "${label}" is selected twice`, 'repeated-label', id)
    chosen.add(label)
  }
  if (raw.custom !== undefined) {
    if (typeof raw.custom !== 'string')
      throw badAnswer(`question "${id}": custom must be a string`, 'shape', id)
    if (raw.custom.trim() === '')
      throw badAnswer(`question "${id}": custom is blank`, 'blank-custom', id)
  }
  if (question.multiSelect !== true) {
    if (chosen.size > 1) {
      throw badAnswer(
        `question "${id}" is single-select but ${chosen.size} labels are selected`,
        'single-select',
        id,
      )
    }
    if (chosen.size > 0 && raw.custom !== undefined) {
      throw badAnswer(
        `question "${id}" is single-select: a custom answer replaces the choice, so selected must be empty`,
        'custom-with-selection',
        id,
      )
    }
  }
  const item: AskUserQuestionAnswerItem = {
    id,
    selected: offered.filter((label) => chosen.has(label)),
  }
  if (raw.custom !== undefined) item.custom = raw.custom
  return item
}

/** What a UI holds for one question before submission. */
export interface AnswerDraft {
  id: string
  /** Chosen labels; on a single-select question at most one. */
  selected?: readonly string[]
  /** Typed text; blank text counts as none. */
  custom?: string
  /** The user skipped the question: it answers `{ id, selected: [] }`. */
  skipped?: boolean
}

/**
 * Turns UI drafts into the canonical answer: a question with no draft, or a
 * skipped one, answers `{ id, selected: [] }`; on a single-select question a
 * typed answer overrides the choice; blank text is no answer. Typed text is
 * normalised here, once, for every UI: line breaks become `\n` and the text
 * is trimmed, so the same keystrokes give the same answer in the terminal, the
 * web console and an MCP client. Throws `BAD_ANSWER` if a draft names a label
 * the question does not offer.
 */
export function encodeAnswer(
  questions: readonly AskUserQuestionItem[],
  drafts: readonly AnswerDraft[],
): AskUserQuestionAnswer {
  const byId = new Map<string, AnswerDraft>()
  for (const draft of drafts) byId.set(draft.id, draft)
  const answers = questions.map((question): AskUserQuestionAnswerItem => {
    const draft = byId.get(question.id)
    if (draft === undefined || draft.skipped === true) return { id: question.id, selected: [] }
    // The one rule for typed text, whatever the UI: CRLF and CR become LF, then trim.
    const custom = isFilled(draft.custom) ? draft.custom.replace(/\r\n?/g, '\n').trim() : undefined
    const selected =
      custom !== undefined && question.multiSelect !== true ? [] : [...(draft.selected ?? [])]
    return custom === undefined
      ? { id: question.id, selected }
      : { id: question.id, selected, custom }
  })
  for (const draft of drafts) {
    if (!questions.some((question) => question.id === draft.id)) {
      throw badAnswer(
        `a draft names question "${draft.id}", which was not asked`,
        'unknown-id',
        draft.id,
      )
    }
  }
  return validateAnswer(questions, { answers })
}
