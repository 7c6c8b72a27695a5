import type { AskUserQuestionItem } from '../../../vocabulary/index.js'
import { h } from './dom.js'
import { RECOMMENDED, nextId } from './view-kit.js'
import type { AskViewContext } from './view-kit.js'

/** A question's options as one radio group (single choice) or checkbox group (multi). */
export interface OptionGroup {
  root: HTMLElement
  /** The option buttons, in order (digits 1–9 press them). */
  buttons: HTMLButtonElement[]
  /** Marks the chosen labels. */
  update(selected: readonly string[]): void
  /** The one option that takes focus when the keyboard enters the group. */
  focusTarget(): HTMLButtonElement | undefined
}

const NEXT_KEYS = new Set(['ArrowDown', 'ArrowRight'])
const PREVIOUS_KEYS = new Set(['ArrowUp', 'ArrowLeft'])

/**
 * Builds the options of a question with one Tab stop (a roving tabindex):
 * arrows, Home and End move focus inside the group without choosing. On a
 * single choice Enter or Space chooses the focused option (and the flow moves
 * on); on a multi-select Space toggles it and Enter confirms the question
 * (`confirm`), never toggling.
 */
export function renderOptions(
  question: AskUserQuestionItem,
  labelledBy: string,
  send: AskViewContext['send'],
  confirm: () => void,
): OptionGroup | undefined {
  const options = question.options ?? []
  if (options.length === 0) return undefined
  const multi = question.multiSelect === true
  let current = 0

  const buttons = options.map((option, position) => {
    const descriptionId = nextId('description')
    const recommended = RECOMMENDED.test(option.label)
    const shown = recommended ? option.label.replace(RECOMMENDED, '') : option.label
    return h(
      'button',
      {
        className: 'option',
        attrs: {
          type: 'button',
          role: multi ? 'checkbox' : 'radio',
          // The name is the label exactly, as the agent wrote it: it is the value the agent gets.
          'aria-label': option.label,
          'aria-describedby': option.description === undefined ? undefined : descriptionId,
          tabindex: -1,
        },
        on: {
          click: () => {
            move(position, false)
            send(
              multi
                ? { type: 'option.toggled', label: option.label }
                : { type: 'option.chosen', label: option.label },
            )
          },
          focus: () => move(position, false),
          keydown: (event) => {
            if (event.key !== 'Enter' || event.isComposing) return
            // A button would take Enter as a click: on a multi-select that toggled, not confirmed.
            event.preventDefault()
            event.stopPropagation()
            if (multi) confirm()
            else buttons[position]?.click()
          },
        },
      },
      [
        h('span', { className: 'option-mark', attrs: { 'aria-hidden': 'true' } }),
        h('span', { className: 'option-body' }, [
          h('span', { className: 'option-title' }, [
            h('span', { className: 'option-label', text: shown }),
            recommended &&
              h('span', {
                className: 'badge',
                text: 'Recommended',
                attrs: { 'aria-hidden': 'true' },
              }),
          ]),
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
    ) as HTMLButtonElement
  })

  function move(position: number, focus: boolean): void {
    current = position
    buttons.forEach((button, index) =>
      button.setAttribute('tabindex', index === position ? '0' : '-1'),
    )
    if (focus) buttons[position]?.focus()
  }

  const root = h(
    'div',
    {
      className: 'options',
      attrs: { role: multi ? 'group' : 'radiogroup', 'aria-labelledby': labelledBy },
      on: {
        keydown: (event) => {
          if (event.altKey || event.ctrlKey || event.metaKey) return
          const last = buttons.length - 1
          let target: number | undefined
          if (NEXT_KEYS.has(event.key)) target = current >= last ? 0 : current + 1
          else if (PREVIOUS_KEYS.has(event.key)) target = current <= 0 ? last : current - 1
          else if (event.key === 'Home') target = 0
          else if (event.key === 'End') target = last
          if (target === undefined) return
          event.preventDefault()
          move(target, true)
        },
      },
    },
    buttons,
  )

  function update(selected: readonly string[]): void {
    options.forEach((option, position) => {
      buttons[position]?.setAttribute('aria-checked', String(selected.includes(option.label)))
    })
    // Entering the group lands on the chosen option (a radio group's rule), else where focus last was.
    const hasFocus = buttons.some((button) => button === document.activeElement)
    if (!hasFocus) {
      const chosen = options.findIndex((option) => selected.includes(option.label))
      move(!multi && chosen >= 0 ? chosen : current, false)
    }
  }

  move(0, false)
  return { root, buttons, update, focusTarget: () => buttons[current] }
}
