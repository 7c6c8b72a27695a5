import { currentQuestion, draftOf, isQuestionAnswered } from '../../../machines/index.js'
import { h } from './dom.js'
import { renderOptions } from './options-view.js'
import {
  deadlineBadge,
  eventButton,
  isComposing,
  nextId,
  questionList,
  sessionBadge,
  viewKey,
} from './view-kit.js'
import type { AskView, AskViewContext, QuestionnaireSnapshot } from './view-kit.js'

/** The generic flow: one question at a time with progress, options, own answer, skip, back, submit. */
export function renderAnswering(snapshot: QuestionnaireSnapshot, context: AskViewContext): AskView {
  const { send } = context
  const { questions, index } = snapshot.context
  const question = currentQuestion(snapshot.context)
  const multi = question.multiSelect === true
  const options = question.options ?? []
  const titleId = nextId('question')
  const customId = nextId('custom')
  const submitHintId = nextId('submit-hint')
  const total = questions.length
  let latest = snapshot

  /** Enter's meaning on a question: submit when the machine allows it, else the next question. */
  function submitOrAdvance(): void {
    if (latest.can({ type: 'batch.submitted' })) send({ type: 'batch.submitted' })
    else if (latest.can({ type: 'question.next' })) send({ type: 'question.next' })
  }

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
    h(
      'button',
      {
        className: 'step',
        attrs: { type: 'button', title: item.question },
        on: { click: () => send({ type: 'question.selected', index: position }) },
      },
      [h('span', { className: 'step-number', text: String(position + 1) })],
    ),
  )
  const group = renderOptions(question, titleId, send, submitOrAdvance)
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
  const back = eventButton(send, { type: 'question.back' }, 'Back')
  const skip = eventButton(send, { type: 'question.skipped' }, 'Skip')
  const next = eventButton(send, { type: 'question.next' }, 'Next')
  const submit = eventButton(send, { type: 'batch.submitted' }, 'Submit', 'button primary')
  submit.setAttribute('aria-describedby', submitHintId)
  const submitHint = h('p', { className: 'submit-hint', attrs: { id: submitHintId } })
  // One question has nothing to go back to, skip past or dismiss "all" of: a quiet Dismiss is enough.
  const single = total === 1
  const dismiss = eventButton(
    send,
    { type: 'batch.cancelled' },
    single ? 'Dismiss' : 'Dismiss all',
    'button ghost danger',
    single
      ? 'Dismiss the question: the agent is told you declined'
      : 'Dismiss the whole batch: the agent is told you declined',
  )

  const keyHint =
    options.length === 0
      ? [h('kbd', { text: 'Enter' }), ' submits when every question is settled, otherwise moves on']
      : multi
        ? [
            h('kbd', { text: '↑' }),
            h('kbd', { text: '↓' }),
            ' move · ',
            h('kbd', { text: 'Space' }),
            ' toggle · ',
            h('kbd', { text: 'Enter' }),
            ' confirm the question · ',
            h('kbd', { text: '1' }),
            '–',
            h('kbd', { text: '9' }),
            ' toggle an option',
          ]
        : [
            h('kbd', { text: '↑' }),
            h('kbd', { text: '↓' }),
            ' move · ',
            h('kbd', { text: 'Enter' }),
            ' choose and move on · ',
            h('kbd', { text: '1' }),
            '–',
            h('kbd', { text: '9' }),
            ' pick an option',
          ]

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
            const option = group?.buttons[Number(event.key) - 1]
            if (option !== undefined) {
              event.preventDefault()
              option.focus()
              option.click()
            }
          }
        },
      },
    },
    [
      h('div', { className: 'card-head' }, [
        question.header !== undefined && h('span', { className: 'chip', text: question.header }),
        !single && h('span', { className: 'counter', text: `Question ${index + 1} of ${total}` }),
        deadlineBadge(context.deadline),
        sessionBadge(context.sessionId),
      ]),
      !single && progress,
      total > 1 && h('nav', { className: 'steps', attrs: { 'aria-label': 'Questions' } }, steps),
      h('h2', { className: 'question', text: question.question, attrs: { id: titleId } }),
      question.detail !== undefined && h('p', { className: 'detail', text: question.detail }),
      group?.root,
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
        !single && back,
        !single && skip,
        index < total - 1 && next,
        submit,
      ]),
      submitHint,
      h('p', { className: 'keys', attrs: { 'aria-hidden': 'true' } }, keyHint),
    ],
  )

  function update(snapshot: QuestionnaireSnapshot): void {
    latest = snapshot
    const { context: flow } = snapshot
    const draft = draftOf(flow, question.id)
    const open = questions.flatMap((item, position) =>
      isQuestionAnswered(flow, item.id) ? [] : [position],
    )
    const settled = total - open.length
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
    group?.update(draft.selected)
    // While the field has focus it holds what the user is typing; the machine only mirrors it.
    if (document.activeElement !== custom) custom.value = draft.custom ?? ''
    skip.setAttribute('aria-pressed', String(draft.skipped))
    back.disabled = !snapshot.can({ type: 'question.back' })
    next.disabled = !snapshot.can({ type: 'question.next' })
    submit.disabled = !snapshot.can({ type: 'batch.submitted' })
    submitHint.textContent = submit.disabled ? `Answer ${questionList(open)} to submit` : ''
  }

  update(snapshot)
  return {
    key: viewKey(snapshot),
    root,
    update,
    focus: () => (group?.focusTarget() ?? custom).focus(),
  }
}
