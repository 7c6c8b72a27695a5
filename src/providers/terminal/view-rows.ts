/**
 * The selectable rows of the terminal's screen: each row drawn as a block of
 * lines (an option with its description, a text field, a plan's choices), and
 * the blocks windowed around the highlight when they do not all fit.
 */
import { draftOf } from '../../machines/index.js'
import type { AskUserQuestionItem } from '../../protocol/index.js'
import { manyLines, oneLine } from './field.js'
import type { TerminalStyle } from './style.js'
import { sanitize, truncate, widthOf, wrapText } from './text.js'
import type { ViewCursor, ViewModel, ViewRow, ViewScreen } from './view-model.js'

/** One row drawn. */
export interface Block {
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

/** Every row of the screen as a block; the highlighted one shows more of its description. */
export function rowBlocks(
  model: ViewModel,
  rows: readonly ViewRow[],
  focus: number,
  screen: ViewScreen,
  width: number,
): Block[] {
  const focusedDescription = screen === 'plan' ? 1 : 3
  return rows.map((row, index) =>
    optionBlock(
      model,
      row,
      index,
      index === focus,
      width,
      index === focus ? focusedDescription : 1,
    ),
  )
}

/**
 * The blocks that fit in `room` lines, grown from the highlighted one, with a
 * mark for what is left out above and below; the cursor is the highlighted
 * block's, relative to the first line returned.
 */
export function windowRows(
  blocks: readonly Block[],
  focus: number,
  room: number,
  style: TerminalStyle,
): { lines: string[]; cursor?: ViewCursor } {
  let start = focus
  let end = focus + 1
  const heightOf = (from: number, to: number) =>
    blocks.slice(from, to).reduce((sum, block) => sum + block.lines.length, 0) +
    (from > 0 ? 1 : 0) +
    (to < blocks.length ? 1 : 0)
  for (let grew = true; grew;) {
    grew = false
    if (end < blocks.length && heightOf(start, end + 1) <= room) {
      end += 1
      grew = true
    }
    if (start > 0 && heightOf(start - 1, end) <= room) {
      start -= 1
      grew = true
    }
  }
  const lines: string[] = []
  let cursor: ViewCursor | undefined
  if (start > 0) lines.push(style.dim(`    ↑ ${start} more`))
  blocks.slice(start, end).forEach((block, offset) => {
    const index = start + offset
    if (index === focus && block.cursor !== undefined) {
      cursor = { line: lines.length + block.cursor.line, column: block.cursor.column }
    }
    lines.push(...block.lines)
  })
  if (end < blocks.length) lines.push(style.dim(`    ↓ ${blocks.length - end} more`))
  return cursor === undefined ? { lines } : { lines, cursor }
}
