import { draftOf, isQuestionAnswered } from '../../machines/index.js'
import { describePlanReview } from '../../vocabulary/index.js'
import type { QuestionnaireContext } from '../../machines/index.js'
import type { AskUserQuestionItem, AskUserQuestionOption } from '../../protocol/index.js'
import type { TextField } from './field.js'
import { fieldOf, manyLines, oneLine } from './field.js'
import type { KeyHint } from './hints.js'
import { fitHints } from './hints.js'
import type { StyledLine } from './markdown.js'
import { clampStyled, planWindow } from './markdown.js'
import type { TerminalStyle } from './style.js'
import { clampLines, sanitize, truncate, widthOf, wrapText } from './text.js'

/** One selectable line of a screen. Text rows take typing; the others act on enter. */
export type ViewRow =
  | { kind: 'option'; option: AskUserQuestionOption }
  | { kind: 'custom' }
  | { kind: 'approve'; option: AskUserQuestionOption }
  /**
   * A plan's other option, by its own label, with room for what should
   * change; without another option, the way to send the plan back with notes.
   */
  | { kind: 'refuse'; option?: AskUserQuestionOption }
  | { kind: 'discuss' }
  | { kind: 'submit' }
  | { kind: 'keep-editing' }

/** Which screen the questionnaire's state and the view's own review flag call for. */
export type ViewScreen = 'question' | 'plan' | 'review'

/** What only the terminal knows: where the highlight is, what is typed, a passing notice. */
export interface ViewState {
  /** The row with the highlight. */
  focus: number
  /** The text row's content and cursor (for the question on screen, or the plan's feedback). */
  field: TextField
  /** Whether a highlighted text row has the keyboard (Esc leaves it, keeping the text). */
  editing: boolean
  /** The review-and-submit overlay is open. */
  reviewing: boolean
  /** "Dismiss these answers?" is being asked. */
  confirming?: boolean
  /** How many lines of a long plan are scrolled away (page up / page down). */
  planOffset?: number
  /** A one-line hint after a key that did nothing, cleared by the next key. */
  notice?: string
}

/** The time left to answer, as a line under the questions. */
export interface ViewClock {
  text: string
  /** The last tenth of the wait: shown as a warning. */
  urgent: boolean
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
  /** Whether the questionnaire would take `batch.submitted` now (asked of the machine). */
  canSubmit: boolean
  /** The remaining time, when the ask has a deadline. */
  clock?: ViewClock
  /** The plan, already formatted (markdown); without it the plan's text is shown as it is. */
  plan?: readonly StyledLine[]
}

/** Where the terminal cursor goes: a line of the frame and a column (cells from the left). */
export interface ViewCursor {
  line: number
  column: number
}

/** The screen lines; `cursor` is set when a text field has the keyboard. */
export interface ViewFrame {
  lines: string[]
  cursor?: ViewCursor
  /** The first plan line on screen, when a long plan is scrolled (what the offset came to). */
  planStart?: number
}

/** A view state with the highlight on `focus` and an empty one-line field. */
export function blankView(focus = 0): ViewState {
  return { focus, field: fieldOf('', false), editing: false, reviewing: false }
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
    // One decision, three ways: approve, the other option (notes optional), or talk instead.
    return [
      { kind: 'approve', option: review.approve },
      review.refuse === undefined ? { kind: 'refuse' } : { kind: 'refuse', option: review.refuse },
      { kind: 'discuss' },
    ]
  }
  const question = context.questions[context.index] as AskUserQuestionItem
  const options = (question.options ?? []).map((option): ViewRow => ({ kind: 'option', option }))
  return [...options, { kind: 'custom' }]
}

/** Whether a row takes typing. */
export function isTextRow(row: ViewRow | undefined): boolean {
  return row?.kind === 'custom' || row?.kind === 'refuse'
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

interface Block {
  /** The lines of the row; the first is the label line. */
  lines: string[]
  /** Where the cursor sits inside the block, when its text field has the keyboard. */
  cursor?: ViewCursor
}

function textBlock(
  model: ViewModel,
  row: Extract<ViewRow, { kind: 'custom' | 'refuse' }>,
  focused: boolean,
  number: string,
  width: number,
): Block {
  const { style, context, view } = model
  const question = context.questions[context.index] as AskUserQuestionItem
  const draft = draftOf(context, question.id)
  const pointer = focused ? style.accent('❯') : ' '
  const title =
    row.kind === 'refuse'
      ? `${truncate(sanitize(row.option?.label ?? 'Send back'), 24)}:`
      : (question.options ?? []).length === 0
        ? 'Answer:'
        : 'Other:'
  const plainPrefix = number === '' ? `${pointer} ` : `  ${number} `
  const prefix = number === '' ? `${pointer} ` : `${pointer} ${style.dim(number)} `
  const head = `${prefix}${focused ? style.bold(title) : title} `
  const headWidth = widthOf(plainPrefix) + widthOf(title) + 1
  const room = Math.max(4, width - headWidth)
  const editing = focused && view.editing
  const typed = row.kind === 'custom' && !editing ? sanitize(draft.custom ?? '') : view.field.text
  if (!editing) {
    const chosen = row.kind === 'custom' && draft.custom !== undefined && !draft.skipped
    const shown =
      typed === ''
        ? style.dim(
            truncate(
              row.kind === 'custom'
                ? 'type your own answer'
                : row.option === undefined
                  ? 'tell the agent what to change'
                  : 'add notes (optional)',
              room - 1,
            ),
          )
        : truncate(typed.replace(/\n/g, ' ⏎ '), room - 2)
    return { lines: [`${head}${shown}${chosen ? ` ${style.success('✔')}` : ''}`] }
  }
  if (!view.field.multiline) {
    const { text, column } = oneLine(view.field, room)
    return { lines: [`${head}${text}`], cursor: { line: 0, column: headWidth + column } }
  }
  const { rows, cursor } = manyLines(view.field, room, 5)
  const indent = ' '.repeat(headWidth)
  return {
    lines: rows.map((line, at) => (at === 0 ? `${head}${line}` : `${indent}${line}`)),
    cursor: { line: cursor.row, column: headWidth + cursor.column },
  }
}

function optionBlock(
  model: ViewModel,
  row: ViewRow,
  position: number,
  focused: boolean,
  width: number,
  descriptionLines: number,
): Block {
  const { style, context } = model
  const question = context.questions[context.index] as AskUserQuestionItem
  const draft = draftOf(context, question.id)
  const pointer = focused ? style.accent('❯') : ' '
  const numbered = row.kind !== 'custom' || (question.options ?? []).length > 0
  const number = numbered ? `${position + 1}.` : ''
  if (row.kind === 'custom' || row.kind === 'refuse') {
    return textBlock(model, row, focused, number, width)
  }
  const indent = ' '.repeat(4 + number.length)
  const labelWidth = width - indent.length
  let label: string
  let description: string | undefined
  switch (row.kind) {
    case 'option':
    case 'approve': {
      label = truncate(sanitize(row.option.label), labelWidth - 2)
      description = row.option.description
      // A skipped question shows no choice: what it answers is "skipped".
      const chosen =
        row.kind === 'option' && !draft.skipped && draft.selected.includes(row.option.label)
      if (row.kind === 'option' && question.multiSelect === true) {
        label = `${chosen ? style.success('◉') : style.dim('◯')} ${label}`
      } else if (chosen) label = `${label} ${style.success('✔')}`
      break
    }
    case 'discuss':
      // The quiet way out: talk it over instead of deciding.
      label = focused ? 'Discuss instead' : style.dim('Discuss instead')
      description = 'talk it over; nothing decided'
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
  // The hint line's words wait until the plan is laid out (it may need "pgdn more").
  bottom.push('')

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
  let middle: string[] = []
  let clipped = false
  let planStart: number | undefined
  if (styled.length > 0) {
    // A question's detail yields to its options beyond a third of the screen; a plan or a
    // summary takes whatever the few rows under it leave.
    const share = screen === 'question' ? Math.max(2, Math.floor(remaining / 3)) : 2
    const wanted = Math.max(share, remaining - rowsWanted)
    const room = Math.max(1, Math.min(styled.length, wanted, remaining - rowsNeeded))
    if (screen === 'plan' && styled.length > room) {
      planStart = Math.max(0, Math.min(view.planOffset ?? 0, styled.length - (room - 1)))
      const window = planWindow(styled, room, planStart, width - 2, style)
      clipped = true
      middle = window.map(paint)
    } else {
      middle = clampStyled(styled, room, width - (screen === 'plan' ? 2 : 0), style).map(paint)
    }
    remaining -= middle.length
  }
  middle.push('')

  const hints = keyHints(model, rows[focus])
  if (clipped) hints.push({ text: 'pgup/pgdn plan', short: 'pgdn plan', priority: 3 })
  bottom[bottom.length - 1] = style.dim(fitHints(hints, width))

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
  let cursor: ViewCursor | undefined
  if (start > 0) rowLines.push(style.dim(`    ↑ ${start} more`))
  blocks.slice(start, end).forEach((block, offset) => {
    const index = start + offset
    if (index === focus && block.cursor !== undefined) {
      cursor = { line: rowLines.length + block.cursor.line, column: block.cursor.column }
    }
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
  if (planStart !== undefined) frame.planStart = planStart
  if (cursor !== undefined) {
    frame.cursor = {
      line: top.length + gap.length + middle.length + cursor.line,
      column: 1 + cursor.column,
    }
  }
  return frame
}
