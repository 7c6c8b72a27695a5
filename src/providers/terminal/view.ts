/**
 * Draws the terminal's screen from a {@link ViewModel}: the header, the
 * detail (a plan, the review's summary), the rows and the footer, each laid
 * out by its own module and fitted here into the terminal's lines.
 */
import { fitHints } from './hints.js'
import { detailSection } from './view-detail.js'
import { footerLines, keyHints } from './view-footer.js'
import { headerLines } from './view-header.js'
import { rowsOf, screenOf } from './view-model.js'
import type { ViewFrame, ViewModel } from './view-model.js'
import { rowBlocks, windowRows } from './view-rows.js'

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
  const rows = rowsOf(context, model.mode, view)
  const focus = Math.min(Math.max(0, view.focus), rows.length - 1)

  const top = headerLines(model, screen, width)
  const bottom = footerLines(model, width)

  // What remains is shared between the detail (or the review summary) and the rows.
  // Lines left for the detail (or summary), the blank under it, and the rows. The detail
  // sits right under its question; the plan and the review summary stand apart.
  const gap: string[] = screen === 'question' ? [] : ['']
  let remaining = budget - top.length - bottom.length - gap.length - 1
  const blocks = rowBlocks(model, rows, focus, screen, width)
  const rowsWanted = blocks.reduce((sum, block) => sum + block.lines.length, 0)
  // The highlighted row always shows, with room for the "more" marks; on a tiny terminal
  // its description gives way first.
  const marks = blocks.length > 1 ? 2 : 0
  const focusedBlock = blocks[focus]
  if (focusedBlock !== undefined && focusedBlock.lines.length > remaining - marks - 1) {
    focusedBlock.lines = focusedBlock.lines.slice(0, Math.max(1, remaining - marks - 1))
  }
  const rowsNeeded = (focusedBlock?.lines.length ?? 1) + marks

  const detail = detailSection(model, screen, width, { remaining, rowsWanted, rowsNeeded })
  remaining -= detail.lines.length
  const middle = [...detail.lines, '']

  const hints = keyHints(model, rows[focus])
  if (detail.clipped) hints.push({ text: 'pgup/pgdn plan', short: 'pgdn plan', priority: 3 })
  bottom[bottom.length - 1] = style.dim(fitHints(hints, width))

  const rowLines = windowRows(blocks, focus, remaining, style)

  // A terminal too small for even that loses the tab bar and the spacing first.
  while (top.length + gap.length + middle.length + rowLines.lines.length + bottom.length > budget) {
    if (top.length > 1) top.shift()
    else if (gap.length > 0) gap.pop()
    else if (bottom.length > 1) bottom.shift()
    else break
  }
  const lines = [...top, ...gap, ...middle, ...rowLines.lines, ...bottom].map((line) =>
    line === '' ? '' : ` ${line}`,
  )
  const frame: ViewFrame = { lines }
  if (detail.planStart !== undefined) frame.planStart = detail.planStart
  if (rowLines.cursor !== undefined) {
    frame.cursor = {
      line: top.length + gap.length + middle.length + rowLines.cursor.line,
      column: 1 + rowLines.cursor.column,
    }
  }
  return frame
}
