import { UserQuestionError } from './errors.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionAnswerItem,
  AskUserQuestionItem,
} from './types.js'
import { isArraySafe, isDict, isFilled, isOwnError } from './read.js'
import type { Dict } from './read.js'

/*
 * The answer rules (DESIGN §5): what a provider's answer must be to be
 * accepted, and the canonical answer the caller gets.
 */

function badAnswer(message: string, rule: string, questionId?: string): UserQuestionError {
  return new UserQuestionError(message, 'BAD_ANSWER', {
    details: questionId === undefined ? { rule } : { questionId, rule },
  })
}

/**
 * Checks a provider's answer against the questions and returns it in the
 * canonical encoding of DESIGN §5 (question order, option order, `custom` only
 * when present), or throws `BAD_ANSWER` naming the question and the rule. Its
 * cost is linear in the size of the questions and the answer. An answer that
 * cannot be read (a throwing getter, a Proxy) is `BAD_ANSWER` with the rule
 * `unreadable`; nothing else is thrown.
 */
export function validateAnswer(
  questions: readonly AskUserQuestionItem[],
  answer: unknown,
): AskUserQuestionAnswer {
  try {
    return canonicalAnswer(questions, answer)
  } catch (error: unknown) {
    if (isOwnError(error)) throw error
    throw new UserQuestionError('the answer could not be read', 'BAD_ANSWER', {
      cause: error,
      details: { rule: 'unreadable' },
    })
  }
}

function canonicalAnswer(
  questions: readonly AskUserQuestionItem[],
  answer: unknown,
): AskUserQuestionAnswer {
  const items = isDict(answer) ? answer.answers : undefined
  if (!isArraySafe(items)) {
    throw badAnswer('the answer must be an object with an answers array', 'shape')
  }
  const byId = new Map<string, AskUserQuestionItem>()
  for (const question of questions) byId.set(question.id, question)
  const given = new Map<string, AskUserQuestionAnswerItem>()
  for (const raw of items) {
    const id = isDict(raw) ? raw.id : undefined
    if (!isDict(raw) || typeof id !== 'string') {
      throw badAnswer('each answer must be an object with a string id', 'shape')
    }
    const question = byId.get(id)
    if (question === undefined) {
      throw badAnswer(`the answer names question "${id}", which was not asked`, 'unknown-id', id)
    }
    if (given.has(id)) throw badAnswer(`question "${id}" is answered twice`, 'duplicate-id', id)
    given.set(id, canonicalItem(question, raw))
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

/**
 * Each label's position among its question's options. A request that passed
 * validateRequest is deeply frozen, so its table is built once and kept for
 * every answer checked against it (a relay checks each client's attempt);
 * questions that could still change are indexed afresh on every call.
 */
const labelIndexes = new WeakMap<AskUserQuestionItem, ReadonlyMap<string, number>>()

function labelIndexOf(question: AskUserQuestionItem): ReadonlyMap<string, number> {
  const cached = labelIndexes.get(question)
  if (cached !== undefined) return cached
  const options = question.options ?? []
  const index = new Map<string, number>()
  options.forEach((option, position) => {
    if (!index.has(option.label)) index.set(option.label, position)
  })
  const frozen =
    Object.isFrozen(question) &&
    Object.isFrozen(options) &&
    options.every((option) => Object.isFrozen(option))
  if (frozen) labelIndexes.set(question, index)
  return index
}

function canonicalItem(question: AskUserQuestionItem, raw: Dict): AskUserQuestionAnswerItem {
  const id = question.id
  // Each field is read once: a getter may answer differently on a second read.
  const rawSelected = raw.selected
  const custom = raw.custom
  const notLabels = () =>
    badAnswer(`question "${id}": selected must be an array of labels`, 'shape', id)
  if (!isArraySafe(rawSelected)) throw notLabels()
  const options = question.options ?? []
  const offered = labelIndexOf(question)
  const chosen = new Uint8Array(options.length)
  let chosenCount = 0
  // One pass, no copies: the cost stays linear in the answer, allocation included.
  for (const label of rawSelected as unknown[]) {
    if (typeof label !== 'string') throw notLabels()
    const index = offered.get(label)
    if (index === undefined) {
      throw badAnswer(`question "${id}": "${label}" is not one of its options`, 'unknown-label', id)
    }
    if (chosen[index] === 1)
      throw badAnswer(`question "${id}": "${label}" is selected twice`, 'repeated-label', id)
    chosen[index] = 1
    chosenCount += 1
  }
  if (custom !== undefined) {
    if (typeof custom !== 'string')
      throw badAnswer(`question "${id}": custom must be a string`, 'shape', id)
    if (!isFilled(custom)) throw badAnswer(`question "${id}": custom is blank`, 'blank-custom', id)
  }
  if (question.multiSelect !== true) {
    if (chosenCount > 1) {
      throw badAnswer(
        `question "${id}" is single-select but ${chosenCount} labels are selected`,
        'single-select',
        id,
      )
    }
    if (chosenCount > 0 && custom !== undefined) {
      throw badAnswer(
        `question "${id}" is single-select: a custom answer replaces the choice, so selected must be empty`,
        'custom-with-selection',
        id,
      )
    }
  }
  const item: AskUserQuestionAnswerItem = {
    id,
    selected: [],
  }
  options.forEach((option, index) => {
    if (chosen[index] === 1) item.selected.push(option.label)
  })
  if (custom !== undefined) item.custom = custom
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
