import { currentQuestion } from '../../../machines/index.js'
import { describePlanReview } from '../../../vocabulary/index.js'
import { h } from './dom.js'
import { renderMarkdown } from './markdown.js'
import {
  approvalsText,
  deadlineBadge,
  eventButton,
  isComposing,
  nextId,
  sessionBadge,
  viewKey,
} from './view-kit.js'
import type { AskView, AskViewContext, QuestionnaireSnapshot } from './view-kit.js'

/**
 * The plan-review card: the plan's markdown as formatted text (built as DOM
 * nodes, never HTML) and one decision with three actions: approve (named by
 * the intent's approve label), the other option by its own label (with the
 * feedback, when typed), and a quiet "Discuss instead" to talk it over. With
 * no other option, the feedback itself is the way to send the plan back.
 */
export function renderPlanReview(
  snapshot: QuestionnaireSnapshot,
  context: AskViewContext,
): AskView {
  const { send } = context
  const review = describePlanReview(snapshot.context.questions)
  const question = review?.question ?? currentQuestion(snapshot.context)
  const titleId = nextId('plan-title')
  const feedbackId = nextId('feedback')
  let latest = snapshot
  const planId = nextId('plan')
  const plan = h(
    'div',
    {
      className: 'plan-text',
      attrs: { id: planId, tabindex: 0, role: 'region', 'aria-label': 'Plan' },
    },
    renderMarkdown(question.detail ?? ''),
  )
  const refuseLabel = review?.refuse?.label ?? 'Send feedback'
  const feedback = h('textarea', {
    className: 'feedback',
    attrs: {
      id: feedbackId,
      rows: 3,
      placeholder:
        review?.refuse === undefined
          ? 'What should change?'
          : `What should change? (optional, sent with ${refuseLabel})`,
    },
    on: {
      input: () => updateRefuse(),
      keydown: (event) => {
        if (event.key !== 'Enter' || event.shiftKey || isComposing(event)) return
        event.preventDefault()
        if (!refuse.disabled) refuse.click()
      },
    },
  })
  const approveLabel = review?.approve.label ?? 'Approve'
  const approve = h('button', {
    className: 'button primary',
    text: approveLabel,
    attrs: { type: 'button', title: review?.approve.description },
    on: { click: () => send({ type: 'plan.approved' }) },
  })
  const approvals = h('p', { className: 'approvals', attrs: { role: 'status' } })
  /** The count as the host last sent it; a person who approved cannot approve again. */
  function updateApprovals(): void {
    const state = context.approvals()
    approvals.hidden = state === undefined
    approvals.textContent = state === undefined ? '' : approvalsText(state)
    const mine = state?.mine === true
    approve.disabled = mine
    approve.textContent = mine ? `${approveLabel} ✓ (you approved)` : approveLabel
  }
  const refuse = h('button', {
    className: 'button',
    text: refuseLabel,
    attrs: { type: 'button', title: review?.refuse?.description },
    on: { click: () => send(refusal()) },
  })
  const discuss = eventButton(
    send,
    { type: 'plan.discussed' },
    'Discuss instead',
    'button ghost',
    'Talk it over with the agent: nothing is approved or sent back',
  )
  /** Feedback, when typed, goes with the refusal; whether it may go is the machine's call. */
  function refusal() {
    return feedback.value === ''
      ? { type: 'plan.refused' as const }
      : { type: 'plan.refused' as const, feedback: feedback.value }
  }
  function updateRefuse(): void {
    refuse.disabled = !latest.can(refusal())
  }
  const root = h(
    'section',
    { className: 'card plan', attrs: { 'aria-labelledby': titleId, 'data-state': 'planReview' } },
    [
      h('div', { className: 'card-head' }, [
        h('span', { className: 'chip accent', text: question.header ?? 'Plan review' }),
        deadlineBadge(context.deadline),
        sessionBadge(context.sessionId),
      ]),
      h('h2', { className: 'question', text: question.question, attrs: { id: titleId } }),
      approvals,
      plan,
      h('label', { className: 'custom-label', text: 'Feedback', attrs: { for: feedbackId } }),
      feedback,
      h('div', { className: 'actions' }, [
        discuss,
        h('span', { className: 'spacer' }),
        refuse,
        approve,
      ]),
      h('p', { className: 'keys', attrs: { 'aria-hidden': 'true' } }, [
        h('kbd', { text: 'Enter' }),
        ` in the feedback sends it with ${refuseLabel} · `,
        h('kbd', { text: 'Shift' }),
        '+',
        h('kbd', { text: 'Enter' }),
        ' new line',
      ]),
    ],
  )
  updateRefuse()
  updateApprovals()
  return {
    key: viewKey(snapshot),
    root,
    update: (next) => {
      latest = next
      updateRefuse()
      updateApprovals()
    },
    focus: () => plan.focus(),
  }
}
