import { canSubmit, draftOf, isQuestionAnswered } from '../../machines/index.js'
import { describePlanReview } from '../../vocabulary/index.js'
import type { QuestionnaireContext } from '../../machines/index.js'
import type { AskUserQuestionItem, AskUserQuestionOption } from '../../protocol/index.js'
import type { TerminalStyle } from './style.js'
import { clampLines, sanitize, truncate, widthOf, wrapText } from './text.js'

/** One selectable line of a screen. Text rows take typing; the others act on enter. */
export type ViewRow =
  | { kind: 'option'; option: AskUserQuestionOption }
  | { kind: 'custom' }
  | { kind: 'approve'; option: AskUserQuestionOption }
  | { kind: 'refuse'; option: AskUserQuestionOption }
  | { kind: 'feedback' }
  | { kind: 'discuss' }
  | { kind: 'submit' }
  | { kind: 'keep-editing' }

/** Which screen the questionnaire's state and the view's own review flag call for. */
export type ViewScreen = 'question' | 'plan' | 'review'

/** What only the terminal knows: where the highlight is, what is typed, a passing notice. */
export interface ViewState {
  /** The row with the highlight. */
  focus: number
  /** The text row's content (for the question on screen, or the plan's feedback). */
  text: string
  /** The review-and-submit overlay is open. */
  reviewing: boolean
  /** A one-line hint after a key that did nothing, cleared by the next key. */
  notice?: string
}

/** What the view is drawn from: the flow's snapshot and the view state. */
export interface ViewModel {
  context: QuestionnaireContext
  /** The questionnaire state: `answering` or `planReview`. */
  mode: 'answering' | 'planReview'
  view: ViewState
  style: TerminalStyle
  columns: number
  rows: number
}

/** The screen lines; `cursorLine` is the text row the cursor sits in, if one has focus. */
export interface ViewFrame {
  lines: string[]
  cursorLine?: number
}

/** Which screen is up. */
export function screenOf(mode: ViewModel['mode'], view: Pick<ViewState, 'reviewing'>): ViewScreen {
  if (mode === 'planReview') return 'plan'
  return view.reviewing ? 'review' : 'question'
}

/** The rows of the screen that is up. */
export function rowsOf(
  context: QuestionnaireContext,
  mode: ViewModel['mode'],
  view: Pick<ViewState, 'reviewing'>,
): ViewRow[] {
  const screen = screenOf(mode, view)
  if (screen === 'review') return [{ kind: 'submit' }, { kind: 'keep-editing' }]
  if (screen === 'plan') {
    const review = describePlanReview(context.questions)
    if (review === undefined) return [{ kind: 'discuss' }]
    return [
      { kind: 'approve', option: review.approve },
      ...(review.refuse === undefined ? [] : [{ kind: 'refuse' as const, option: review.refuse }]),
      { kind: 'feedback' },
      { kind: 'discuss' },
    ]
  }
  const question = context.questions[context.index] as AskUserQuestionItem
  const options = (question.options ?? []).map((option): ViewRow => ({ kind: 'option', option }))
  return [...options, { kind: 'custom' }]
}

/** Whether a row takes typing. */
export function isTextRow(row: ViewRow | undefined): boolean {
  return row?.kind === 'custom' || row?.kind === 'feedback'
}

const MARK = { answered: '✔', skipped: '↷', open: '○' } as const

function questionMark(context: QuestionnaireContext, question: AskUserQuestionItem): string {
  if (draftOf(context, question.id).skipped) return MARK.skipped
  return isQuestionAnswered(context, question.id) ? MARK.answered : MARK.open
}

function tabBar(model: ViewModel, width: number): string {
  const { context, style, view } = model
  const tabs = context.questions.map((question, index) => {
    const title = truncate(sanitize(question.header ?? `Q${index + 1}`), 18)
    return { text: ` ${questionMark(context, question)} ${title} `, index }
  })
  tabs.push({ text: ' Submit ', index: context.questions.length })
  const active = view.reviewing ? context.questions.length : context.index
  // Show a window of tabs around the active one that fits the width.
  let start = active
  let end = active + 1
  const used = () => tabs.slice(start, end).reduce((sum, tab) => sum + widthOf(tab.text), 0) + 4
  while (start > 0 || end < tabs.length) {
    const grewRight =
      end < tabs.length && ((end += 1), used() <= width ? true : ((end -= 1), false))
    const grewLeft = start > 0 && ((start -= 1), used() <= width ? true : ((start += 1), false))
    if (!grewRight && !grewLeft) break
  }
  const shown = tabs.slice(start, end).map((tab) => {
    if (tab.index === active) return style.inverse(style.bold(tab.text))
    const done = tab.index < context.questions.length && !tab.text.includes(MARK.open)
    return done ? style.success(tab.text) : style.dim(tab.text)
  })
  return `${start > 0 ? style.dim('‹ ') : ''}${shown.join('')}${end < tabs.length ? style.dim(' ›') : ''}`
}

interface Block {
  /** The lines of the row; the first is the label line. */
  lines: string[]
}

function optionBlock(
  model: ViewModel,
  row: ViewRow,
  position: number,
  focused: boolean,
  width: number,
  descriptionLines: number,
): Block {
  const { style, context, view } = model
  const question = context.questions[context.index] as AskUserQuestionItem
  const draft = draftOf(context, question.id)
  const pointer = focused ? style.accent('❯') : ' '
  const numbered = row.kind !== 'custom' || (question.options ?? []).length > 0
  const number = numbered ? `${position + 1}.` : ''
  const indent = ' '.repeat(4 + number.length)
  const labelWidth = width - indent.length
  let label: string
  let description: string | undefined
  switch (row.kind) {
    case 'option':
    case 'approve':
    case 'refuse': {
      label = truncate(sanitize(row.option.label), labelWidth - 2)
      description = row.option.description
      const chosen = row.kind === 'option' && draft.selected.includes(row.option.label)
      if (row.kind === 'option' && question.multiSelect === true) {
        label = `${chosen ? style.success('◉') : style.dim('◯')} ${label}`
      } else if (chosen) label = `${label} ${style.success('✔')}`
      break
    }
    case 'custom':
    case 'feedback': {
      const title =
        row.kind === 'feedback'
          ? 'Revise with notes:'
          : (question.options ?? []).length === 0
            ? 'Answer:'
            : 'Other:'
      const typed = focused
        ? view.text
        : sanitize(row.kind === 'custom' ? (draft.custom ?? '') : '')
      const placeholder =
        !focused && typed === ''
          ? style.dim(
              row.kind === 'feedback' ? 'tell the agent what to change' : 'type your own answer',
            )
          : ''
      // The typed text stays unstyled and last on its line: the cursor is placed after it.
      label = `${focused ? style.bold(title) : title} ${placeholder}${typed}`
      if (row.kind === 'custom' && draft.custom !== undefined && !focused) {
        label = `${label} ${style.success('✔')}`
      }
      return {
        lines: [numbered ? `${pointer} ${style.dim(number)} ${label}` : `${pointer} ${label}`],
      }
    }
    case 'discuss':
      label = 'Discuss instead'
      description = 'Stop here and talk it over; nothing is approved'
      break
    case 'submit':
      label = 'Submit answers'
      break
    case 'keep-editing':
      label = 'Keep editing'
      break
  }
  const shownLabel = focused ? style.bold(label) : label
  const lines = [`${pointer} ${style.dim(number)} ${shownLabel}`]
  if (description !== undefined && descriptionLines > 0) {
    const wrapped = wrapText(sanitize(description), labelWidth)
    const kept = focused
      ? wrapped.slice(0, descriptionLines)
      : [truncate(wrapped.join(' '), labelWidth)]
    if (wrapped.length > kept.length && focused) {
      kept[kept.length - 1] = truncate(`${kept[kept.length - 1] ?? ''}…`, labelWidth)
    }
    for (const line of kept) lines.push(`${indent}${style.dim(line)}`)
  }
  return { lines }
}

function keyHints(model: ViewModel, row: ViewRow | undefined): string {
  const { context } = model
  const screen = screenOf(model.mode, model.view)
  const many = context.questions.length > 1
  const hints: string[] = []
  if (screen === 'review') hints.push('↑↓ move', 'enter select', '← back')
  else if (screen === 'plan') {
    hints.push(isTextRow(row) ? 'enter send' : 'enter select', '↑↓ move', 'tab skip')
  } else {
    const question = context.questions[context.index] as AskUserQuestionItem
    if (isTextRow(row)) hints.push('enter confirm')
    else if (question.multiSelect === true) hints.push('space toggle', 'enter confirm')
    else hints.push('enter choose')
    hints.push('↑↓ move', 'tab skip')
    if (many) hints.push('←→ questions')
    if (canSubmit(context)) hints.push('ctrl+s submit')
  }
  hints.push('esc dismiss')
  return hints.join(' · ')
}

/**
 * Draws the screen that is up, fitted to the terminal: long text is wrapped
 * and clamped, long option lists are windowed around the highlight, and
 * every line fits the width, so the prompt can redraw itself in place.
 */
export function renderView(model: ViewModel): ViewFrame {
  const { context, style, view } = model
  // One column of margin on the left and one spare on the right, so no line ever wraps.
  const width = Math.max(20, model.columns - 2)
  const budget = Math.max(6, model.rows - 1)
  const screen = screenOf(model.mode, view)
  const question = context.questions[context.index] as AskUserQuestionItem
  const rows = rowsOf(context, model.mode, view)
  const focus = Math.min(Math.max(0, view.focus), rows.length - 1)

  const top: string[] = []
  if (context.questions.length > 1) top.push(tabBar(model, width), '')
  const progress =
    context.questions.length > 1 ? `${context.index + 1} of ${context.questions.length}` : ''
  if (screen === 'review') {
    top.push(style.bold('Review your answers'))
  } else {
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
  }

  const bottom: string[] = ['']
  if (view.notice !== undefined) bottom.push(style.warning(truncate(`! ${view.notice}`, width)))
  bottom.push(style.dim(truncate(keyHints(model, rows[focus]), width)))

  // What remains is shared between the detail (or the review summary) and the rows.
  // Lines left for the detail (or summary), the blank under it, and the rows. The detail
  // sits right under its question; the plan and the review summary stand apart.
  const gap: string[] = screen === 'question' ? [] : ['']
  let remaining = budget - top.length - bottom.length - gap.length - 1
  const focusedDescription = screen === 'plan' ? 1 : 3
  const blocks = rows.map((row, index) =>
    optionBlock(
      model,
      row,
      index,
      index === focus,
      width,
      index === focus ? focusedDescription : 1,
    ),
  )
  const rowsWanted = blocks.reduce((sum, block) => sum + block.lines.length, 0)
  // The highlighted row always shows, with room for the "more" marks; on a tiny terminal
  // its description gives way first.
  const marks = blocks.length > 1 ? 2 : 0
  const focusedBlock = blocks[focus]
  if (focusedBlock !== undefined && focusedBlock.lines.length > remaining - marks - 1) {
    focusedBlock.lines = focusedBlock.lines.slice(0, Math.max(1, remaining - marks - 1))
  }
  const rowsNeeded = (focusedBlock?.lines.length ?? 1) + marks

  // The middle is built plain, clamped, then styled: widths are measured on plain text.
  let plain: string[] = []
  let paint: (line: string, index: number) => string = (line) => line
  if (screen === 'review') {
    const summary = context.questions.map((item, index) => {
      const draft = draftOf(context, item.id)
      const parts = [
        ...draft.selected,
        ...(draft.custom === undefined ? [] : [`“${draft.custom}”`]),
      ]
      const value = draft.skipped ? 'skipped' : parts.length > 0 ? parts.join(', ') : 'not answered'
      const title = truncate(sanitize(item.header ?? `Q${index + 1}`), 18).padEnd(18)
      return { title, value: truncate(sanitize(value), width - 21), open: parts.length === 0 }
    })
    plain = summary.map(({ title, value }) => `  ${title} ${value}`)
    paint = (line, index) => {
      const entry = summary[index]
      if (entry === undefined || line.startsWith('…')) return style.dim(line)
      const value =
        entry.value === 'not answered'
          ? style.warning(entry.value)
          : entry.open
            ? style.dim(entry.value)
            : entry.value
      return `  ${style.dim(entry.title)} ${value}`
    }
  } else if (question.detail !== undefined) {
    const isPlan = screen === 'plan'
    plain = wrapText(sanitize(question.detail, true), width - (isPlan ? 2 : 0))
    paint = (line) => {
      if (!isPlan) return style.dim(line)
      const text = /^#{1,6} /.test(line) ? style.bold(line.replace(/^#+ /, '')) : line
      return `${style.accent('│')} ${line.startsWith('… ') ? style.dim(line) : text}`
    }
  }
  let middle: string[] = []
  if (plain.length > 0) {
    // A question's detail yields to its options beyond a third of the screen; a plan or a
    // summary takes whatever the few rows under it leave.
    const share = screen === 'question' ? Math.max(2, Math.floor(remaining / 3)) : 2
    const wanted = Math.max(share, remaining - rowsWanted)
    const room = Math.max(1, Math.min(plain.length, wanted, remaining - rowsNeeded))
    middle = clampLines(plain, room, width - (screen === 'plan' ? 2 : 0)).map(paint)
    remaining -= middle.length
  }
  middle.push('')

  // Window the rows around the highlight, marking what is above and below.
  let start = focus
  let end = focus + 1
  const heightOf = (from: number, to: number) =>
    blocks.slice(from, to).reduce((sum, block) => sum + block.lines.length, 0) +
    (from > 0 ? 1 : 0) +
    (to < blocks.length ? 1 : 0)
  for (let grew = true; grew;) {
    grew = false
    if (end < blocks.length && heightOf(start, end + 1) <= remaining) {
      end += 1
      grew = true
    }
    if (start > 0 && heightOf(start - 1, end) <= remaining) {
      start -= 1
      grew = true
    }
  }
  const rowLines: string[] = []
  let cursorLine: number | undefined
  if (start > 0) rowLines.push(style.dim(`    ↑ ${start} more`))
  blocks.slice(start, end).forEach((block, offset) => {
    const index = start + offset
    if (index === focus && isTextRow(rows[index])) cursorLine = rowLines.length
    rowLines.push(...block.lines)
  })
  if (end < blocks.length) rowLines.push(style.dim(`    ↓ ${blocks.length - end} more`))

  // A terminal too small for even that loses the tab bar and the spacing first.
  while (top.length + gap.length + middle.length + rowLines.length + bottom.length > budget) {
    if (top.length > 1) top.shift()
    else if (gap.length > 0) gap.pop()
    else if (bottom.length > 1) bottom.shift()
    else break
  }
  const lines = [...top, ...gap, ...middle, ...rowLines, ...bottom].map((line) =>
    line === '' ? '' : ` ${line}`,
  )
  const frame: ViewFrame = { lines }
  if (cursorLine !== undefined)
    frame.cursorLine = top.length + gap.length + middle.length + cursorLine
  return frame
}
