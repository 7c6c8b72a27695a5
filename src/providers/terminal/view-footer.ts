/**
 * The bottom of the terminal's screen: the "dismiss?" question or a passing
 * notice, the time left, and the hint line of the keys that do something on
 * the screen that is up.
 */
import { draftOf, isQuestionAnswered } from '../../machines/index.js'
import type { AskUserQuestionItem } from '../../protocol/index.js'
import type { KeyHint } from './hints.js'
import { truncate } from './text.js'
import { isTextRow, screenOf } from './view-model.js'
import type { ViewModel, ViewRow } from './view-model.js'

/**
 * The lines under the rows, from a blank one down to the hint line, which is
 * left empty here: its words wait until the plan is laid out (it may need
 * "pgdn more").
 */
export function footerLines(model: ViewModel, width: number): string[] {
  const { context, style, view } = model
  const bottom: string[] = ['']
  if (view.confirming === true) {
    const answered = context.questions.filter((item) => isQuestionAnswered(context, item.id)).length
    const what = answered === 1 ? 'the answer' : `the ${answered} answers`
    bottom.push(style.warning(truncate(`! Dismiss the questions and lose ${what}? (y/n)`, width)))
  } else if (view.notice !== undefined) {
    bottom.push(style.warning(truncate(`! ${view.notice}`, width)))
  }
  if (model.clock !== undefined) {
    const { text, urgent } = model.clock
    bottom.push(
      urgent
        ? style.warning(truncate(`⚠ ${text}`, width))
        : style.dim(truncate(`⏱ ${text}`, width)),
    )
  }
  bottom.push('')
  return bottom
}

/** The hints for the screen that is up, most needed first (see {@link fitHints}). */
export function keyHints(model: ViewModel, row: ViewRow | undefined): KeyHint[] {
  const { context, view } = model
  const screen = screenOf(model.mode, view)
  const editing = isTextRow(row) && view.editing
  if (view.confirming === true) {
    return [
      { text: 'y dismiss', priority: 0 },
      { text: 'n keep answering', short: 'n keep', priority: 0 },
    ]
  }
  const hints: KeyHint[] = []
  const leave = { text: 'esc leave field', short: 'esc leave', priority: 1 }
  const dismiss = { text: 'esc dismiss', priority: 0 }
  if (screen === 'review') {
    hints.push(
      { text: 'enter select', priority: 1 },
      { text: '↑↓ move', priority: 3 },
      { text: 'shift+tab back', short: '⇧tab back', priority: 2 },
      dismiss,
    )
    return hints
  }
  if (screen === 'plan') {
    hints.push({ text: editing ? 'enter send' : 'enter select', priority: 1 })
    if (editing) hints.push(leave)
    hints.push({ text: '↑↓ move', priority: 3 })
    hints.push(editing ? { text: 'ctrl+c dismiss', short: '^c dismiss', priority: 5 } : dismiss)
    return hints
  }
  const question = context.questions[context.index] as AskUserQuestionItem
  const many = context.questions.length > 1
  if (isTextRow(row)) hints.push({ text: editing ? 'enter confirm' : 'enter edit', priority: 1 })
  else if (question.multiSelect === true) {
    hints.push({ text: 'space toggle', priority: 1 }, { text: 'enter confirm', priority: 2 })
  } else hints.push({ text: 'enter choose', priority: 1 })
  if (editing) hints.push(leave)
  hints.push({ text: '↑↓ move', priority: 4 })
  const answered =
    isQuestionAnswered(context, question.id) && !draftOf(context, question.id).skipped
  hints.push({ text: answered ? 'tab next' : 'tab skip', priority: 3 })
  if (many) {
    hints.push(
      editing
        ? { text: 'shift+tab back', short: '⇧tab back', priority: 6 }
        : { text: '←→ questions', short: '←→', priority: 6 },
    )
  }
  if (model.canSubmit) hints.push({ text: 'ctrl+s submit', short: '^s submit', priority: 2 })
  hints.push(editing ? { text: 'ctrl+c dismiss', short: '^c dismiss', priority: 5 } : dismiss)
  return hints
}
