import { currentQuestion } from '../../../machines/index.js'
import { describePlanReview } from '../../../vocabulary/index.js'
import { h } from './dom.js'
import { eventButton, isComposing, nextId, sessionBadge, viewKey } from './view-kit.js'
import type { AskView, AskViewContext, QuestionnaireSnapshot } from './view-kit.js'

/** The plan-review card: the plan as text in a monospace block, approve / refuse / discuss. */
export function renderPlanReview(
  snapshot: QuestionnaireSnapshot,
  context: AskViewContext,
): AskView {
  const { send } = context
  const review = describePlanReview(snapshot.context.questions)
  const question = review?.question ?? currentQuestion(snapshot.context)
  const titleId = nextId('plan-title')
  const feedbackId = nextId('feedback')
  const plan = h('pre', {
    className: 'plan-text',
    text: question.detail ?? '',
    attrs: { tabindex: 0, 'aria-label': 'Plan' },
  })
  const feedback = h('textarea', {
    className: 'feedback',
    attrs: { id: feedbackId, rows: 3, placeholder: 'What should change? (optional)' },
    on: {
      input: () => updateRefuse(),
      keydown: (event) => {
        if (event.key !== 'Enter' || event.shiftKey || isComposing(event)) return
        event.preventDefault()
        if (!refuse.disabled) refuse.click()
      },
    },
  })
  const approve = h(
    'button',
    {
      className: 'button primary',
      attrs: { type: 'button', 'aria-label': 'Approve' },
      on: { click: () => send({ type: 'plan.approved' }) },
    },
    [
      h('span', { text: 'Approve' }),
      review !== undefined &&
        review.approve.label !== 'Approve' &&
        h('span', { className: 'button-note', text: review.approve.label }),
    ],
  )
  const refuse = h(
    'button',
    {
      className: 'button',
      attrs: { type: 'button', 'aria-label': 'Refuse' },
      on: {
        click: () => {
          const text = feedback.value.trim()
          send(
            text === ''
              ? { type: 'plan.refused' }
              : { type: 'plan.refused', feedback: feedback.value },
          )
        },
      },
    },
    [
      h('span', { text: 'Refuse' }),
      review?.refuse !== undefined &&
        review.refuse.label !== 'Refuse' &&
        h('span', { className: 'button-note', text: review.refuse.label }),
    ],
  )
  const discuss = eventButton(
    send,
    { type: 'plan.discussed' },
    'Discuss',
    'button',
    'Talk it over with the agent instead of answering',
  )
  const skip = eventButton(send, { type: 'question.skipped' }, 'Skip', 'button ghost')
  const dismiss = eventButton(
    send,
    { type: 'batch.cancelled' },
    'Dismiss',
    'button ghost danger',
    'Dismiss the question: the agent is told you declined',
  )
  function updateRefuse(): void {
    refuse.disabled = review?.refuse === undefined && feedback.value.trim() === ''
  }
  const describe = (label: string, text: string | undefined) =>
    text !== undefined && h('li', {}, [h('strong', { text: label }), ' ', text])
  const root = h(
    'section',
    { className: 'card plan', attrs: { 'aria-labelledby': titleId, 'data-state': 'planReview' } },
    [
      h('div', { className: 'card-head' }, [
        h('span', { className: 'chip accent', text: question.header ?? 'Plan review' }),
        sessionBadge(context.sessionId),
      ]),
      h('h2', { className: 'question', text: question.question, attrs: { id: titleId } }),
      plan,
      (review?.approve.description !== undefined || review?.refuse?.description !== undefined) &&
        h('ul', { className: 'plan-options' }, [
          describe(review?.approve.label ?? '', review?.approve.description),
          describe(review?.refuse?.label ?? '', review?.refuse?.description),
        ]),
      h('label', { className: 'custom-label', text: 'Feedback', attrs: { for: feedbackId } }),
      feedback,
      h('div', { className: 'actions' }, [
        dismiss,
        skip,
        h('span', { className: 'spacer' }),
        discuss,
        refuse,
        approve,
      ]),
      h('p', { className: 'keys', attrs: { 'aria-hidden': 'true' } }, [
        h('kbd', { text: 'Enter' }),
        ' in the feedback refuses with it · ',
        h('kbd', { text: 'Shift' }),
        '+',
        h('kbd', { text: 'Enter' }),
        ' new line',
      ]),
    ],
  )
  updateRefuse()
  return { key: viewKey(snapshot), root, update: () => updateRefuse(), focus: () => plan.focus() }
}
