/**
 * The middle of the terminal's screen, between the question and its rows: a
 * question's detail, a plan (scrolled when it is longer than the room left),
 * or the review screen's summary of every answer.
 */
import { draftOf } from '../../machines/index.js'
import type { AskUserQuestionItem } from '../../protocol/index.js'
import type { StyledLine } from './markdown.js'
import { clampStyled, planWindow } from './markdown.js'
import { clampLines, sanitize, truncate, wrapText } from './text.js'
import type { ViewModel, ViewScreen } from './view-model.js'

function planLines(model: ViewModel, question: AskUserQuestionItem, width: number): StyledLine[] {
  const { style } = model
  const text = question.detail ?? ''
  if (model.plan !== undefined) return [...model.plan]
  return wrapText(sanitize(text, true), width).map((plain) => ({
    plain,
    styled: /^#{1,6} /.test(plain) ? style.bold(plain.replace(/^#+ /, '')) : plain,
  }))
}

/**
 * The review screen's summary: each question's title and its answer, the
 * answer wrapped (never cut) under its title on a narrow terminal and beside
 * it on a wide one, so a custom answer reads in full.
 */
function reviewLines(model: ViewModel, width: number): StyledLine[] {
  const { context, style } = model
  const stacked = width < 60
  const lines: StyledLine[] = []
  context.questions.forEach((item, index) => {
    const draft = draftOf(context, item.id)
    const parts = draft.skipped
      ? []
      : [...draft.selected, ...(draft.custom === undefined ? [] : [`“${draft.custom.trim()}”`])]
    const value = draft.skipped ? 'skipped' : parts.length > 0 ? parts.join(', ') : 'not answered'
    const paint = (text: string) =>
      value === 'not answered' ? style.warning(text) : parts.length === 0 ? style.dim(text) : text
    const title = truncate(sanitize(item.header ?? `Q${index + 1}`), stacked ? width - 2 : 18)
    const indent = stacked ? 4 : 21
    // A long answer keeps a few lines; the last says it goes on.
    const wrapped = clampLines(wrapText(sanitize(value), width - indent), 4, width - indent)
    if (stacked) {
      lines.push({ plain: `  ${title}`, styled: `  ${style.dim(title)}` })
    }
    wrapped.forEach((text, at) => {
      const head = stacked || at > 0 ? ' '.repeat(indent) : `  ${title.padEnd(18)} `
      const styledHead = stacked || at > 0 ? head : `  ${style.dim(title.padEnd(18))} `
      lines.push({ plain: `${head}${text}`, styled: `${styledHead}${paint(text)}` })
    })
  })
  return lines
}

/** The middle as drawn, and whether a plan was cut to a window (then from which line). */
export interface DetailSection {
  lines: string[]
  clipped: boolean
  planStart?: number
}

/**
 * The middle, fitted to `remaining` lines: a question's detail yields to its
 * options beyond a third of the screen; a plan or a summary takes whatever
 * the rows under it leave (`rowsWanted` to show them all, `rowsNeeded` at
 * the least).
 */
export function detailSection(
  model: ViewModel,
  screen: ViewScreen,
  width: number,
  space: { remaining: number; rowsWanted: number; rowsNeeded: number },
): DetailSection {
  const { context, style, view } = model
  const { remaining, rowsWanted, rowsNeeded } = space
  const question = context.questions[context.index] as AskUserQuestionItem
  // Built plain, clamped, then styled: widths are measured on plain text.
  let styled: StyledLine[] = []
  let paint: (line: StyledLine) => string = (line) => line.styled
  if (screen === 'review') {
    styled = reviewLines(model, width)
  } else if (screen === 'plan' && question.detail !== undefined) {
    styled = planLines(model, question, width - 2)
    paint = (line) =>
      `${style.accent('│')} ${line.plain.startsWith('… ') && line.styled === line.plain ? style.dim(line.plain) : line.styled}`
  } else if (question.detail !== undefined) {
    styled = wrapText(sanitize(question.detail, true), width).map((plain) => ({
      plain,
      styled: style.dim(plain),
    }))
  }
  if (styled.length === 0) return { lines: [], clipped: false }
  const share = screen === 'question' ? Math.max(2, Math.floor(remaining / 3)) : 2
  const wanted = Math.max(share, remaining - rowsWanted)
  const room = Math.max(1, Math.min(styled.length, wanted, remaining - rowsNeeded))
  if (screen === 'plan' && styled.length > room) {
    const planStart = Math.max(0, Math.min(view.planOffset ?? 0, styled.length - (room - 1)))
    const window = planWindow(styled, room, planStart, width - 2, style)
    return { lines: window.map(paint), clipped: true, planStart }
  }
  const lines = clampStyled(styled, room, width - (screen === 'plan' ? 2 : 0), style).map(paint)
  return { lines, clipped: false }
}
