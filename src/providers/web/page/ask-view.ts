import type { SnapshotFrom } from 'xstate'
import {
  canSubmit,
  currentQuestion,
  describePlanReview,
  draftOf,
  isQuestionAnswered,
} from '../../../machines/questionnaire.machine.js'
import type {
  QuestionnaireEvent,
  questionnaireMachine,
} from '../../../machines/questionnaire.machine.js'
import { h } from './dom.js'

/** A snapshot of the questionnaire that drives one ask on the page. */
export type QuestionnaireSnapshot = SnapshotFrom<typeof questionnaireMachine>

/** What the view needs from the page: where to send the user's events. */
export interface AskViewContext {
  /** The asking agent's id, shown as the session. */
  sessionId: string | undefined
  send(event: QuestionnaireEvent): void
}

/** One rendered screen of an ask; rebuilt when {@link viewKey} changes, patched otherwise. */
export interface AskView {
  readonly key: string
  readonly root: HTMLElement
  update(snapshot: QuestionnaireSnapshot): void
  /** Moves focus to where the keyboard should start on this screen. */
  focus(): void
}

let ids = 0
const nextId = (prefix: string) => `${prefix}-${++ids}`

/** Which screen a snapshot shows: a new key means a new screen. */
export function viewKey(snapshot: QuestionnaireSnapshot): string {
  return snapshot.value === 'answering'
    ? `answering:${snapshot.context.index}`
    : String(snapshot.value)
}

/** Whether a key press is part of an IME composition (and must not submit anything). */
function isComposing(event: KeyboardEvent): boolean {
  return event.isComposing || event.keyCode === 229
}

function sessionBadge(sessionId: string | undefined): HTMLElement | false {
  return (
    sessionId !== undefined && h('span', { className: 'session', text: `Session ${sessionId}` })
  )
}

/** Builds the screen for a snapshot. */
export function renderAskView(snapshot: QuestionnaireSnapshot, context: AskViewContext): AskView {
  return snapshot.value === 'planReview'
    ? renderPlanReview(snapshot, context)
    : renderAnswering(snapshot, context)
}

function renderAnswering(snapshot: QuestionnaireSnapshot, context: AskViewContext): AskView {
  const { send } = context
  const { questions, index } = snapshot.context
  const question = currentQuestion(snapshot.context)
  const multi = question.multiSelect === true
  const options = question.options ?? []
  const titleId = nextId('question')
  const customId = nextId('custom')
  const total = questions.length
  let latest = snapshot

  const bar = h('div', { className: 'progress-bar' })
  const progress = h(
    'div',
    {
      className: 'progress',
      attrs: {
        role: 'progressbar',
        'aria-label': 'Questions settled',
        'aria-valuemin': 0,
        'aria-valuemax': total,
      },
    },
    [bar],
  )
  const steps = questions.map((item, position) =>
    h('button', {
      className: 'step',
      text: String(position + 1),
      attrs: { type: 'button', title: item.question },
      on: { click: () => send({ type: 'question.selected', index: position }) },
    }),
  )
  const optionButtons = options.map((option, position) => {
    const descriptionId = nextId('description')
    return h(
      'button',
      {
        className: 'option',
        attrs: {
          type: 'button',
          role: multi ? 'checkbox' : 'radio',
          'aria-label': option.label,
          'aria-describedby': option.description === undefined ? undefined : descriptionId,
          'data-key': position < 9 ? position + 1 : undefined,
        },
        on: {
          click: () =>
            send(
              multi
                ? { type: 'option.toggled', label: option.label }
                : { type: 'option.chosen', label: option.label },
            ),
        },
      },
      [
        h('span', { className: 'option-mark', attrs: { 'aria-hidden': 'true' } }),
        h('span', { className: 'option-body' }, [
          h('span', { className: 'option-label', text: option.label }),
          option.description !== undefined &&
            h('span', {
              className: 'option-description',
              text: option.description,
              attrs: { id: descriptionId },
            }),
        ]),
        position < 9 &&
          h('kbd', {
            className: 'option-key',
            text: String(position + 1),
            attrs: { 'aria-hidden': 'true' },
          }),
      ],
    )
  })
  let composing = false
  const custom = h('input', {
    className: 'custom-input',
    attrs: {
      id: customId,
      type: 'text',
      autocomplete: 'off',
      spellcheck: 'true',
      placeholder: options.length === 0 ? 'Type your answer' : 'Type an answer of your own',
    },
    on: {
      compositionstart: () => {
        composing = true
      },
      compositionend: () => {
        composing = false
        send({ type: 'custom.typed', text: custom.value })
      },
      input: (event) => {
        if (composing || (event as InputEvent).isComposing) return
        send({ type: 'custom.typed', text: custom.value })
      },
      keydown: (event) => {
        if (event.key !== 'Enter' || isComposing(event) || composing) return
        event.preventDefault()
        submitOrAdvance()
      },
    },
  })
  const back = h('button', {
    className: 'button',
    text: 'Back',
    attrs: { type: 'button' },
    on: { click: () => send({ type: 'question.back' }) },
  })
  const skip = h('button', {
    className: 'button',
    text: 'Skip',
    attrs: { type: 'button' },
    on: { click: () => send({ type: 'question.skipped' }) },
  })
  const next = h('button', {
    className: 'button',
    text: 'Next',
    attrs: { type: 'button' },
    on: { click: () => send({ type: 'question.next' }) },
  })
  const submit = h('button', {
    className: 'button primary',
    text: 'Submit',
    attrs: { type: 'button' },
    on: { click: () => send({ type: 'batch.submitted' }) },
  })
  const dismiss = h('button', {
    className: 'button ghost danger',
    text: 'Dismiss all',
    attrs: { type: 'button', title: 'Dismiss the whole batch: the agent is told you declined' },
    on: { click: () => send({ type: 'batch.cancelled' }) },
  })

  function submitOrAdvance(): void {
    if (canSubmit(latest.context)) send({ type: 'batch.submitted' })
    else if (latest.context.index < total - 1) send({ type: 'question.next' })
  }

  const root = h(
    'section',
    {
      className: 'card',
      attrs: { 'aria-labelledby': titleId, 'data-state': 'answering' },
      on: {
        keydown: (event) => {
          const target = event.target as HTMLElement
          if (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || isComposing(event))
            return
          if (event.key === 'Enter' && target.tagName !== 'BUTTON') {
            event.preventDefault()
            submitOrAdvance()
            return
          }
          if (/^[1-9]$/.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
            const option = optionButtons[Number(event.key) - 1]
            if (option !== undefined) {
              event.preventDefault()
              option.click()
            }
          }
        },
      },
    },
    [
      h('div', { className: 'card-head' }, [
        question.header !== undefined && h('span', { className: 'chip', text: question.header }),
        h('span', { className: 'counter', text: `Question ${index + 1} of ${total}` }),
        sessionBadge(context.sessionId),
      ]),
      progress,
      total > 1 && h('nav', { className: 'steps', attrs: { 'aria-label': 'Questions' } }, steps),
      h('h2', { className: 'question', text: question.question, attrs: { id: titleId } }),
      question.detail !== undefined && h('p', { className: 'detail', text: question.detail }),
      options.length > 0 &&
        h(
          'div',
          {
            className: 'options',
            attrs: { role: multi ? 'group' : 'radiogroup', 'aria-labelledby': titleId },
          },
          optionButtons,
        ),
      multi && options.length > 0 && h('p', { className: 'hint', text: 'Choose any number.' }),
      h('div', { className: 'custom' }, [
        h('label', {
          className: 'custom-label',
          text:
            options.length === 0
              ? 'Your answer'
              : multi
                ? 'Add your own'
                : 'Or answer in your own words',
          attrs: { for: customId },
        }),
        custom,
      ]),
      h('div', { className: 'actions' }, [
        dismiss,
        h('span', { className: 'spacer' }),
        back,
        skip,
        index < total - 1 && next,
        submit,
      ]),
      h('p', { className: 'keys', attrs: { 'aria-hidden': 'true' } }, [
        h('kbd', { text: 'Enter' }),
        ' submits when every question is settled, otherwise moves on · ',
        h('kbd', { text: '1' }),
        '–',
        h('kbd', { text: '9' }),
        ' pick an option',
      ]),
    ],
  )

  function update(snapshot: QuestionnaireSnapshot): void {
    latest = snapshot
    const { context: flow } = snapshot
    const draft = draftOf(flow, question.id)
    const settled = questions.filter((item) => isQuestionAnswered(flow, item.id)).length
    bar.style.width = `${(settled / total) * 100}%`
    progress.setAttribute('aria-valuenow', String(settled))
    progress.setAttribute('aria-valuetext', `${settled} of ${total} settled`)
    steps.forEach((step, position) => {
      const item = questions[position]
      if (item === undefined) return
      const state = draftOf(flow, item.id).skipped
        ? 'skipped'
        : isQuestionAnswered(flow, item.id)
          ? 'answered'
          : 'open'
      step.dataset.state = state
      step.setAttribute(
        'aria-label',
        `Question ${position + 1}: ${state === 'open' ? 'not answered' : state}`,
      )
      if (position === flow.index) step.setAttribute('aria-current', 'step')
      else step.removeAttribute('aria-current')
    })
    options.forEach((option, position) => {
      const chosen = draft.selected.includes(option.label)
      optionButtons[position]?.setAttribute('aria-checked', String(chosen))
    })
    // While the field has focus it holds what the user is typing; the machine only mirrors it.
    if (document.activeElement !== custom) custom.value = draft.custom ?? ''
    skip.setAttribute('aria-pressed', String(draft.skipped))
    back.disabled = flow.index === 0
    next.disabled = flow.index >= total - 1
    submit.disabled = !canSubmit(flow)
  }

  update(snapshot)
  return {
    key: viewKey(snapshot),
    root,
    update,
    focus: () => (optionButtons[0] ?? custom).focus(),
  }
}

function renderPlanReview(snapshot: QuestionnaireSnapshot, context: AskViewContext): AskView {
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
  const discuss = h('button', {
    className: 'button',
    text: 'Discuss',
    attrs: { type: 'button', title: 'Talk it over with the agent instead of answering' },
    on: { click: () => send({ type: 'plan.discussed' }) },
  })
  const skip = h('button', {
    className: 'button ghost',
    text: 'Skip',
    attrs: { type: 'button' },
    on: { click: () => send({ type: 'question.skipped' }) },
  })
  const dismiss = h('button', {
    className: 'button ghost danger',
    text: 'Dismiss',
    attrs: { type: 'button', title: 'Dismiss the question: the agent is told you declined' },
    on: { click: () => send({ type: 'batch.cancelled' }) },
  })
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
