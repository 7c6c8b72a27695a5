import { UserQuestionError } from './errors.js'
import { isFilled } from './read.js'
import type { AskUserQuestionItem, AskUserQuestionOption } from './types.js'

// The one home of what an intent means: the rules a request must meet to
// declare one (BAD_INTENT), and when a UI shows the question as a plan review.

function invalid(message: string, details: Record<string, unknown>): UserQuestionError {
  return new UserQuestionError(message, 'BAD_INTENT', { details })
}

/** The intent rules, run once every question has its shape. */
export function checkIntent(item: AskUserQuestionItem, index: number): void {
  const intent = item.intent
  if (intent === undefined) return
  const at = `questions[${index}].intent`
  const details = (rule: string) => ({ questionId: item.id, field: at, rule })
  if (intent.kind !== 'plan-review') {
    throw invalid(`${at}.kind "${intent.kind}" is not a known intent`, details('unknown-kind'))
  }
  if (!isFilled(item.detail)) {
    throw invalid(
      `question "${item.id}" declares a plan-review intent but has no detail to carry the plan`,
      details('needs-detail'),
    )
  }
  if (!(item.options ?? []).some((option) => option.label === intent.approve)) {
    throw invalid(
      `question "${item.id}": intent.approve "${intent.approve}" names none of its options`,
      details('approve-not-an-option'),
    )
  }
}

/**
 * Whether an ask is one plan-review question: the ask `approvals` applies
 * to, and the one whose "discuss" is about a plan. (Whether a UI can show it
 * as a plan review is {@link describePlanReview}'s stricter reading.)
 */
export function isPlanReviewAsk(questions: readonly AskUserQuestionItem[]): boolean {
  return questions.length === 1 && questions[0]?.intent?.kind === 'plan-review'
}

/** The options of a plan-review question, as a plan-review screen offers them. */
export interface PlanReviewChoice {
  question: AskUserQuestionItem
  /** The approving option, named by the intent's `approve` label. */
  approve: AskUserQuestionOption
  /** The one other option, if the question offers one; refusing answers it. */
  refuse?: AskUserQuestionOption
}

/**
 * The plan-review reading of a batch, or `undefined` when it does not qualify:
 * exactly one question, intent kind `plan-review`, a `detail`, the `approve`
 * label among its options, single-select, and at most one other option.
 */
export function describePlanReview(
  questions: readonly AskUserQuestionItem[],
): PlanReviewChoice | undefined {
  const [question] = questions
  if (questions.length !== 1 || question === undefined) return undefined
  const intent = question.intent
  if (intent?.kind !== 'plan-review' || !isFilled(question.detail)) return undefined
  if (question.multiSelect === true) return undefined
  const options = question.options ?? []
  const approve = options.find((option) => option.label === intent.approve)
  if (approve === undefined || options.length > 2) return undefined
  const refuse = options.find((option) => option !== approve)
  return refuse === undefined ? { question, approve } : { question, approve, refuse }
}

/** Whether a batch is shown as a plan review (see {@link describePlanReview}). */
export function qualifiesForPlanReview(questions: readonly AskUserQuestionItem[]): boolean {
  return describePlanReview(questions) !== undefined
}
