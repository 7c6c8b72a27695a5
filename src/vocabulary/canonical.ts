import type { AskPolicy, AskUserQuestionItem } from './types.js'

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

/** What a key stands for: the questions, and who may answer and how many must approve (DESIGN §10, §12). */
export interface AskTerms {
  readonly questions: readonly AskUserQuestionItem[]
  readonly policy?: AskPolicy | undefined
}

/**
 * What the ask a key holds and an ask made again with that key differ in:
 * `'questions'`, `'policy'`, or `undefined` when it is the same ask. The
 * order of `answerers` and an entry written twice do not matter.
 */
export function differenceOf(held: AskTerms, asked: AskTerms): 'questions' | 'policy' | undefined {
  if (!sameQuestions(held.questions, asked.questions)) return 'questions'
  return canonicalPolicy(held.policy) === canonicalPolicy(asked.policy) ? undefined : 'policy'
}

const canonicalPolicy = (policy: AskPolicy | undefined): string =>
  canonicalJson({
    answerers: policy?.answerers && [...new Set(policy.answerers)].sort(),
    approvals: policy?.approvals,
  })

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
