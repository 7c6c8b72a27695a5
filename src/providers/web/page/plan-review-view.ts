import { currentQuestion } from '../../../machines/index.js'
import { describePlanReview } from '../../../vocabulary/index.js'
import { h } from './dom.js'
import { renderMarkdown } from './markdown.js'
import {
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
 * nodes, never HTML), approve / refuse / discuss.
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
      attrs: { type: 'button' },
      on: { click: () => send({ type: 'plan.approved' }) },
    },
    withNote('Approve', review?.approve.label),
  )
  const refuse = h(
    'button',
    {
      className: 'button',
      attrs: { type: 'button' },
      on: { click: () => send(refusal()) },
    },
    withNote('Refuse', review?.refuse?.label),
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
  /** Feedback, when typed, goes with the refusal; whether it may go is the machine's call. */
  function refusal() {
    return feedback.value === ''
      ? { type: 'plan.refused' as const }
      : { type: 'plan.refused' as const, feedback: feedback.value }
  }
  function updateRefuse(): void {
    refuse.disabled = !latest.can(refusal())
  }
  const describe = (label: string, text: string | undefined) =>
    text !== undefined && h('li', {}, [h('strong', { text: label }), ' ', text])
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
  return {
    key: viewKey(snapshot),
    root,
    update: (next) => {
      latest = next
      updateRefuse()
    },
    focus: () => plan.focus(),
  }
}

/**
 * A button's text: the action, and the option it answers when that is named
 * otherwise ("Refuse / Revise"), all of it visible and all of it the name.
 */
function withNote(action: string, label: string | undefined): (Node | string)[] {
  return label === undefined || label === action
    ? [action]
    : [action, h('span', { className: 'button-note' }, [' / ', label])]
}
