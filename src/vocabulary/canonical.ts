import type { AskUserQuestionItem } from './types.js'

/*
 * "The same questions" (DESIGN §10): deep-equal after validation, where key
 * order, omitted optional fields and optional fields written out at their
 * default (an undefined `description`, `multiSelect: false`) do not matter.
 */

/**
 * The canonical text of a batch of questions: JSON with sorted keys, with
 * `undefined` fields and `multiSelect: false` left out. Two batches are "the
 * same questions" exactly when their canonical texts are equal; a digest of
 * it names what was asked.
 */
export function canonicalQuestions(questions: readonly AskUserQuestionItem[]): string {
  return JSON.stringify(questions.map((question) => sortedValue(question, atDefault)))
}

/** Any JSON value as canonical text: keys sorted at every depth, `undefined` fields left out. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedValue(value, () => false)) ?? 'null'
}

/** Whether two validated batches are the same questions (see {@link canonicalQuestions}). */
export function sameQuestions(
  a: readonly AskUserQuestionItem[],
  b: readonly AskUserQuestionItem[],
): boolean {
  return a === b || canonicalQuestions(a) === canonicalQuestions(b)
}

/** A question's optional field written out at its default. */
const atDefault = (key: string, field: unknown) => key === 'multiSelect' && field === false

function sortedValue(value: unknown, omit: (key: string, field: unknown) => boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => sortedValue(item, omit))
  if (typeof value !== 'object' || value === null) return value
  const record = value as Record<string, unknown>
  const sorted: Record<string, unknown> = {}
  for (const key of Object.keys(record).sort()) {
    const field = record[key]
    if (field === undefined || omit(key, field)) continue
    sorted[key] = sortedValue(field, omit)
  }
  return sorted
}
