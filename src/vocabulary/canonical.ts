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
  return JSON.stringify(questions.map(canonicalValue))
}

/** Whether two validated batches are the same questions (see {@link canonicalQuestions}). */
export function sameQuestions(
  a: readonly AskUserQuestionItem[],
  b: readonly AskUserQuestionItem[],
): boolean {
  return a === b || canonicalQuestions(a) === canonicalQuestions(b)
}

function canonicalValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalValue)
  if (typeof value !== 'object' || value === null) return value
  const record = value as Record<string, unknown>
  const sorted: Record<string, unknown> = {}
  for (const key of Object.keys(record).sort()) {
    const field = record[key]
    if (field === undefined || (key === 'multiSelect' && field === false)) continue
    sorted[key] = canonicalValue(field)
  }
  return sorted
}
