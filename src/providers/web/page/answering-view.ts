import { canSubmit, currentQuestion, draftOf, isQuestionAnswered } from '../../../machines/index.js'
import { h } from './dom.js'
import { eventButton, isComposing, nextId, sessionBadge, viewKey } from './view-kit.js'
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
  const back = eventButton(send, { type: 'question.back' }, 'Back')
  const skip = eventButton(send, { type: 'question.skipped' }, 'Skip')
  const next = eventButton(send, { type: 'question.next' }, 'Next')
  const submit = eventButton(send, { type: 'batch.submitted' }, 'Submit', 'button primary')
  const dismiss = eventButton(
    send,
    { type: 'batch.cancelled' },
    'Dismiss all',
    'button ghost danger',
    'Dismiss the whole batch: the agent is told you declined',
  )

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
