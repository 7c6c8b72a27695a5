/**
 * A plan's markdown as styled terminal lines, from the token stream of a
 * markdown lexer (`marked`'s): headings bold, list items with bullets or
 * numbers, code dim, links as their text followed by the address. Every piece
 * of text passes through {@link sanitize}, so nothing the model wrote reaches
 * the terminal as an escape sequence, and raw HTML is shown as text without
 * its tags.
 */
import type { Token, Tokens } from 'marked'
import type { TerminalStyle } from './style.js'
import { sanitize, truncate, widthOf } from './text.js'

/** One screen line: its text for measuring, and the same text with styles for drawing. */
export interface StyledLine {
  plain: string
  styled: string
}

/** What a markdown lexer does: text in, block tokens out (`marked.lexer`). */
export type MarkdownLexer = (markdown: string) => Token[]

type Look = 'plain' | 'bold' | 'dim' | 'accent'

interface Piece {
  text: string
  look: Look
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X'))
      return safeCodePoint(parseInt(name.slice(2), 16), whole)
    if (name.startsWith('#')) return safeCodePoint(parseInt(name.slice(1), 10), whole)
    return ENTITIES[name.toLowerCase()] ?? whole
  })
}

function safeCodePoint(code: number, fallback: string): string {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff
    ? String.fromCodePoint(code)
    : fallback
}

function clean(text: string): string {
  return sanitize(decodeEntities(text))
}

function inline(tokens: readonly Token[] | undefined, look: Look = 'plain'): Piece[] {
  const pieces: Piece[] = []
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'strong':
        pieces.push(...inline((token as Tokens.Strong).tokens, 'bold'))
        break
      case 'em':
      case 'del':
        pieces.push(...inline((token as Tokens.Em).tokens, look))
        break
      case 'codespan':
        pieces.push({ text: clean((token as Tokens.Codespan).text), look: 'dim' })
        break
      case 'link': {
        const link = token as Tokens.Link
        const label = inline(link.tokens, look === 'plain' ? 'accent' : look)
        pieces.push(...label)
        const shown = label.map((piece) => piece.text).join('')
        if (clean(link.href) !== shown) pieces.push({ text: ` (${clean(link.href)})`, look: 'dim' })
        break
      }
      case 'image': {
        const image = token as Tokens.Image
        pieces.push({ text: `[image: ${clean(image.text)}]`, look })
        pieces.push({ text: ` (${clean(image.href)})`, look: 'dim' })
        break
      }
      case 'br':
        pieces.push({ text: '\n', look })
        break
      case 'html':
        // Tags are markup for a browser; the terminal shows only the text between them.
        pieces.push({ text: clean((token as Tokens.HTML).text.replace(/<[^>]*>/g, '')), look })
        break
      case 'text': {
        const text = token as Tokens.Text
        if (text.tokens !== undefined && text.tokens.length > 0) {
          pieces.push(...inline(text.tokens, look))
        } else pieces.push({ text: clean(text.text), look })
        break
      }
      default:
        if ('text' in token && typeof token.text === 'string') {
          pieces.push({ text: clean(token.text), look })
        }
    }
  }
  return pieces
}

function paint(piece: Piece, style: TerminalStyle): string {
  switch (piece.look) {
    case 'bold':
      return style.bold(piece.text)
    case 'dim':
      return style.dim(piece.text)
    case 'accent':
      return style.accent(piece.text)
    default:
      return piece.text
  }
}

/** Word-wraps styled pieces to `width` cells; `first` and `rest` prefix the first and later lines. */
function wrapPieces(
  pieces: readonly Piece[],
  width: number,
  style: TerminalStyle,
  first: Piece,
  rest: string,
): StyledLine[] {
  const lines: StyledLine[] = []
  let plain = first.text
  let styled = paint(first, style)
  let empty = true
  const flush = () => {
    lines.push({ plain: plain.trimEnd(), styled })
    plain = rest
    styled = rest
    empty = true
  }
  for (const piece of pieces) {
    const parts = piece.text.split(/(\s+)/)
    for (const part of parts) {
      if (part === '') continue
      if (part.includes('\n')) {
        flush()
        continue
      }
      const isSpace = /^\s+$/.test(part)
      if (isSpace) {
        if (empty) continue
        if (widthOf(plain) + 1 > width) flush()
        else {
          plain += ' '
          styled += ' '
        }
        continue
      }
      let word = part
      if (!empty && widthOf(plain) + widthOf(word) > width) flush()
      // A word longer than a line is cut, so a long address cannot push the frame wider.
      while (widthOf(plain) + widthOf(word) > width) {
        const room = Math.max(1, width - widthOf(plain))
        const head = [...word].slice(0, room).join('')
        plain += head
        styled += paint({ text: head, look: piece.look }, style)
        word = word.slice(head.length)
        flush()
      }
      plain += word
      styled += paint({ text: word, look: piece.look }, style)
      empty = false
    }
  }
  if (!empty || lines.length === 0) flush()
  return lines
}

function blocks(
  tokens: readonly Token[],
  width: number,
  style: TerminalStyle,
  indent: string,
): StyledLine[] {
  const out: StyledLine[] = []
  const gap = () => {
    if (out.length > 0 && out[out.length - 1]?.plain !== indent.trimEnd()) {
      out.push({ plain: indent.trimEnd(), styled: indent.trimEnd() })
    }
  }
  const lead = (text: string): Piece => ({ text: `${indent}${text}`, look: 'plain' })
  for (const token of tokens) {
    switch (token.type) {
      case 'space':
      case 'def':
        break
      case 'heading': {
        gap()
        const heading = token as Tokens.Heading
        const pieces = inline(heading.tokens).map((piece) => ({ ...piece, look: 'bold' as Look }))
        out.push(...wrapPieces(pieces, width, style, lead(''), indent))
        break
      }
      case 'paragraph':
      case 'text': {
        if (token.type === 'paragraph') gap()
        const text = token as Tokens.Paragraph
        const pieces =
          text.tokens !== undefined && text.tokens.length > 0
            ? inline(text.tokens)
            : [{ text: clean(text.text), look: 'plain' as Look }]
        out.push(...wrapPieces(pieces, width, style, lead(''), indent))
        break
      }
      case 'list': {
        gap()
        const list = token as Tokens.List
        const start = typeof list.start === 'number' ? list.start : 1
        list.items.forEach((item, index) => {
          const task = item.task ? (item.checked === true ? '[x] ' : '[ ] ') : ''
          const bullet = `${list.ordered ? `${start + index}.` : '•'} ${task}`
          const nested = blocks(
            item.tokens,
            width,
            style,
            `${indent}${' '.repeat(widthOf(bullet))}`,
          )
          const [head, ...tail] = nested
          if (head !== undefined) {
            const text = head.plain.slice(indent.length + widthOf(bullet))
            const styled = head.styled.slice(indent.length + widthOf(bullet))
            out.push({
              plain: `${indent}${bullet}${text}`,
              styled: `${indent}${style.accent(bullet)}${styled}`,
            })
          }
          out.push(...tail.filter((line, at) => line.plain.trim() !== '' || at < tail.length - 1))
        })
        break
      }
      case 'code': {
        gap()
        const code = token as Tokens.Code
        for (const line of sanitize(code.text, true).split('\n')) {
          const plain = truncate(`${indent}  ${line}`, width)
          out.push({ plain, styled: style.dim(plain) })
        }
        break
      }
      case 'blockquote': {
        gap()
        const quote = token as Tokens.Blockquote
        const inner = blocks(quote.tokens, width - 2, style, '')
        for (const line of inner) {
          out.push({
            plain: `${indent}▏ ${line.plain}`,
            styled: `${indent}${style.dim('▏')} ${style.dim(line.plain)}`,
          })
        }
        break
      }
      case 'hr': {
        gap()
        const plain = `${indent}${'─'.repeat(Math.max(3, Math.min(24, width - indent.length)))}`
        out.push({ plain, styled: style.dim(plain) })
        break
      }
      case 'table': {
        gap()
        const table = token as Tokens.Table
        const cells = (row: readonly Tokens.TableCell[]) =>
          row
            .map((cell) =>
              inline(cell.tokens)
                .map((piece) => piece.text)
                .join(''),
            )
            .join(' │ ')
        const header = truncate(`${indent}${cells(table.header)}`, width)
        out.push({ plain: header, styled: style.bold(header) })
        for (const row of table.rows) {
          const plain = truncate(`${indent}${cells(row)}`, width)
          out.push({ plain, styled: plain })
        }
        break
      }
      case 'html': {
        gap()
        const text = clean((token as Tokens.HTML).text.replace(/<[^>]*>/g, ''))
        if (text.trim() !== '') {
          out.push(...wrapPieces([{ text, look: 'plain' }], width, style, lead(''), indent))
        }
        break
      }
      default:
        if ('text' in token && typeof token.text === 'string') {
          gap()
          out.push(
            ...wrapPieces(
              [{ text: clean(token.text), look: 'plain' }],
              width,
              style,
              lead(''),
              indent,
            ),
          )
        }
    }
  }
  return out
}

/** The lines of `markdown` fitted to `width` cells, styled with `style`. */
export function formatMarkdown(
  lexer: MarkdownLexer,
  markdown: string,
  style: TerminalStyle,
  width: number,
): StyledLine[] {
  // A plan is model-written: line breaks are normalised before the lexer sees them.
  const lines = blocks(lexer(markdown.replace(/\r\n?/g, '\n')), Math.max(10, width), style, '')
  while (lines.length > 0 && lines[lines.length - 1]?.plain === '') lines.pop()
  return lines
}
