/**
 * Text helpers for the terminal view. Everything a model wrote passes through
 * {@link sanitize} first, so a label cannot move the cursor or recolour the
 * screen; widths are measured in terminal cells.
 */

// ESC sequences (CSI, OSC, and two-byte ones) and every other C0/C1 control but the newline.
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/** Model-written text made safe to print: no escape sequences or control characters, tabs as spaces. */
export function sanitize(text: string, keepNewlines = false): string {
  const flat = text.replace(/\r\n?/g, '\n').replace(/\t/g, '  ').replace(ESCAPE_SEQUENCE, '')
  const clean = flat.replace(CONTROL, '')
  return keepNewlines ? clean : clean.replace(/\n+/g, ' ')
}

function isZeroWidth(code: number): boolean {
  return (
    (code >= 0x300 && code <= 0x36f) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0xfe00 && code <= 0xfe0f)
  )
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  )
}

function cellsOf(char: string): number {
  const code = char.codePointAt(0) ?? 0
  if (isZeroWidth(code)) return 0
  return isWide(code) ? 2 : 1
}

/** How many terminal cells `text` (plain, no escape sequences) takes. */
export function widthOf(text: string): number {
  let width = 0
  for (const char of text) width += cellsOf(char)
  return width
}

/** `text` cut to at most `width` cells, ending in `…` when something was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return ''
  if (widthOf(text) <= width) return text
  let result = ''
  let used = 0
  for (const char of text) {
    const cells = cellsOf(char)
    if (used + cells > width - 1) break
    result += char
    used += cells
  }
  return `${result}…`
}

/** Word-wraps plain text (newlines kept) to lines of at most `width` cells; long words break. */
export function wrapText(text: string, width: number): string[] {
  const limit = Math.max(1, width)
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    let line = ''
    for (const word of paragraph.split(' ')) {
      let rest = word
      while (widthOf(rest) > limit) {
        if (line !== '') {
          lines.push(line)
          line = ''
        }
        let head = ''
        let used = 0
        for (const char of rest) {
          if (used + cellsOf(char) > limit) break
          head += char
          used += cellsOf(char)
        }
        lines.push(head)
        rest = rest.slice(head.length)
      }
      const candidate = line === '' ? rest : `${line} ${rest}`
      if (widthOf(candidate) <= limit) line = candidate
      else {
        lines.push(line)
        line = rest
      }
    }
    lines.push(line.trimEnd())
  }
  return lines
}

/** At most `max` lines; the last kept line says how many were left out. */
export function clampLines(lines: readonly string[], max: number, width: number): string[] {
  if (lines.length <= max) return [...lines]
  if (max <= 0) return []
  if (max === 1) return [truncate(`${lines[0] ?? ''} …`, width)]
  const kept = lines.slice(0, max - 1)
  kept.push(
    truncate(
      `… ${lines.length - max + 1} more line${lines.length - max + 1 === 1 ? '' : 's'}`,
      width,
    ),
  )
  return kept
}

/** A countdown as a terminal shows it: `1:05`, or `1 h 05 min` from an hour up. */
export function remainingText(milliseconds: number): string {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000))
  if (seconds >= 3600) {
    const minutes = Math.floor((seconds % 3600) / 60)
    return `${Math.floor(seconds / 3600)} h ${String(minutes).padStart(2, '0')} min`
  }
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}
