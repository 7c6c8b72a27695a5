/**
 * The top of the terminal's screen: the tab bar of a batch's questions, then
 * the question on screen (its header, where it is in the batch, its words),
 * or the review screen's title.
 */
import { draftOf, isQuestionAnswered } from '../../machines/index.js'
import type { QuestionnaireContext } from '../../machines/index.js'
import type { AskUserQuestionItem } from '../../protocol/index.js'
import { clampLines, sanitize, truncate, widthOf, wrapText } from './text.js'
import type { ViewModel, ViewScreen } from './view-model.js'

const MARK = { answered: '✔', skipped: '↷', open: '○' } as const

function questionMark(context: QuestionnaireContext, question: AskUserQuestionItem): string {
  if (draftOf(context, question.id).skipped) return MARK.skipped
  return isQuestionAnswered(context, question.id) ? MARK.answered : MARK.open
}

function tabBar(model: ViewModel, width: number): string {
  const { context, style, view } = model
  const tabs = context.questions.map((question, index) => {
    const title = truncate(sanitize(question.header ?? `Q${index + 1}`), 18)
    return { label: `${questionMark(context, question)} ${title}`, index }
  })
  tabs.push({ label: 'Submit', index: context.questions.length })
  const active = view.reviewing ? context.questions.length : context.index
  // Brackets mark the active tab, so it stands out without colours (NO_COLOR) too.
  const textOf = (tab: { label: string; index: number }) =>
    tab.index === active ? `[${tab.label}]` : ` ${tab.label} `
  // Show a window of tabs around the active one that fits the width.
  let start = active
  let end = active + 1
  const used = () => tabs.slice(start, end).reduce((sum, tab) => sum + widthOf(textOf(tab)), 0) + 4
  while (start > 0 || end < tabs.length) {
    const grewRight =
      end < tabs.length && ((end += 1), used() <= width ? true : ((end -= 1), false))
    const grewLeft = start > 0 && ((start -= 1), used() <= width ? true : ((start += 1), false))
    if (!grewRight && !grewLeft) break
  }
  const shown = tabs.slice(start, end).map((tab) => {
    if (tab.index === active) return style.inverse(style.bold(textOf(tab)))
    const done = tab.index < context.questions.length && !tab.label.startsWith(MARK.open)
    return done ? style.success(textOf(tab)) : style.dim(textOf(tab))
  })
  return `${start > 0 ? style.dim('‹ ') : ''}${shown.join('')}${end < tabs.length ? style.dim(' ›') : ''}`
}

/** The lines above the rows: the tab bar (of a batch), then the question or the review's title. */
export function headerLines(model: ViewModel, screen: ViewScreen, width: number): string[] {
  const { context, style } = model
  const question = context.questions[context.index] as AskUserQuestionItem
  const top: string[] = []
  if (context.questions.length > 1) top.push(tabBar(model, width), '')
  if (model.note !== undefined) top.push(style.warning(truncate(sanitize(model.note), width)))
  const progress =
    context.questions.length > 1 ? `${context.index + 1} of ${context.questions.length}` : ''
  if (screen === 'review') {
    top.push(style.bold('Review your answers'))
    return top
  }
  const header =
    question.header === undefined
      ? ''
      : style.accent(style.bold(truncate(sanitize(question.header), 30)))
  const meta = [header, progress === '' ? '' : style.dim(progress)].filter((part) => part !== '')
  if (meta.length > 0) top.push(meta.join(style.dim(' · ')))
  const kind = question.multiSelect === true ? style.dim(' (choose any)') : ''
  const wrapped = wrapText(sanitize(question.question), width)
  const clamped = clampLines(wrapped, 3, width).map((line) => style.bold(line))
  if (kind !== '' && clamped.length > 0) clamped[clamped.length - 1] += kind
  top.push(...clamped)
  return top
}
