import { renderAnswering } from './answering-view.js'
import { renderPlanReview } from './plan-review-view.js'
import type { AskView, AskViewContext, QuestionnaireSnapshot } from './view-kit.js'

export { viewKey } from './view-kit.js'
export type { AskView, AskViewContext, QuestionnaireSnapshot } from './view-kit.js'

/** Builds the screen for a snapshot. */
export function renderAskView(snapshot: QuestionnaireSnapshot, context: AskViewContext): AskView {
  return snapshot.value === 'planReview'
    ? renderPlanReview(snapshot, context)
    : renderAnswering(snapshot, context)
}
