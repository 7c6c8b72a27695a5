/**
 * The parts of the answering card that stand on their own: the progress bar
 * and step buttons, the own-answer field, the key hints, and the card's
 * keyboard shortcuts. `answering-view.ts` puts them together.
 */
import { draftOf, isQuestionAnswered } from '../../../machines/index.js'
import type { AskUserQuestionItem } from '../../../vocabulary/index.js'
import type { Child } from './dom.js'
import { h } from './dom.js'
import type { OptionGroup } from './options-view.js'
import { isComposing } from './view-kit.js'
import type { AskViewContext, QuestionnaireSnapshot } from './view-kit.js'

/** The progress bar and one step button per question, and how to bring them up to date. */
export function renderProgress(
  questions: readonly AskUserQuestionItem[],
  send: AskViewContext['send'],
): {
  progress: HTMLElement
  steps: HTMLElement[]
  /** Marks what is settled; returns the positions of the questions still open. */
  update(flow: QuestionnaireSnapshot['context']): number[]
} {
  const total = questions.length
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

  function update(flow: QuestionnaireSnapshot['context']): number[] {
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
    return open
  }

  return { progress, steps, update }
}

/**
 * The own-answer field: what is typed goes to the flow as it is typed (not
 * mid-composition, for IMEs), and Enter submits or moves on.
 */
export function renderCustomInput(
  id: string,
  hasOptions: boolean,
  send: AskViewContext['send'],
  submitOrAdvance: () => void,
): HTMLInputElement {
  let composing = false
  const custom = h('input', {
    className: 'custom-input',
    attrs: {
      id,
      type: 'text',
      autocomplete: 'off',
      spellcheck: 'true',
      placeholder: hasOptions ? 'Type an answer of your own' : 'Type your answer',
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
  return custom
}

/** The line of key hints under the card, for a free-text, single or multiple choice question. */
export function keyHint(hasOptions: boolean, multi: boolean): Child[] {
  if (!hasOptions) {
    return [
      h('kbd', { text: 'Enter' }),
      ' submits when every question is settled, otherwise moves on',
    ]
  }
  const digits = [h('kbd', { text: '1' }), '–', h('kbd', { text: '9' })]
  const move = [h('kbd', { text: '↑' }), h('kbd', { text: '↓' }), ' move · ']
  return multi
    ? [
        ...move,
        h('kbd', { text: 'Space' }),
        ' toggle · ',
        h('kbd', { text: 'Enter' }),
        ' confirm the question · ',
        ...digits,
        ' toggle an option',
      ]
    : [...move, h('kbd', { text: 'Enter' }), ' choose and move on · ', ...digits, ' pick an option']
}

/**
 * The card's own shortcuts, outside text fields: Enter submits or moves on
 * (a focused button keeps its own Enter), digits 1–9 press an option.
 */
export function cardKeys(
  group: OptionGroup | undefined,
  submitOrAdvance: () => void,
): (event: KeyboardEvent) => void {
  return (event) => {
    const target = event.target as HTMLElement
    if (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || isComposing(event)) return
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
  }
}
