/**
 * A text field's content and cursor, edited by key intents. Pure: each edit
 * returns a new field. Positions count code points, so an emoji or an accented
 * letter moves and deletes as one.
 */
import type { KeyIntent } from './keymap.js'

/** What a text field holds: the text and where the cursor is in it. */
export interface TextField {
  readonly text: string
  /** The cursor, in code points from the start (0 … length). */
  readonly cursor: number
  /** Whether newlines stay (a multi-line field) or become spaces. */
  readonly multiline: boolean
}

/** A field holding `text`, with the cursor at its end. */
export function fieldOf(text: string, multiline: boolean): TextField {
  return { text, cursor: [...text].length, multiline }
}

// eslint-disable-next-line no-control-regex
const CONTROLS = /\u001b\[[0-9;?]*[ -/]*[@-~]|[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g

/**
 * What a field keeps of inserted text: tabs become spaces, other control
 * characters go, and line breaks stay in a multi-line field or become one
 * space each in a one-line field.
 */
export function insertable(text: string, multiline: boolean): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ')
  // Escape sequences go whole (a paste may carry colours), then any other control character.
  const clean = lines.replace(CONTROLS, '')
  return multiline ? clean : clean.replace(/\n/g, ' ')
}

/** `field` with `text` inserted at the cursor. */
export function insertText(field: TextField, text: string): TextField {
  const chars = [...field.text]
  const added = [...insertable(text, field.multiline)]
  chars.splice(field.cursor, 0, ...added)
  return { ...field, text: chars.join(''), cursor: field.cursor + added.length }
}

function wordStart(chars: readonly string[], cursor: number): number {
  let at = cursor
  while (at > 0 && /\s/.test(chars[at - 1] ?? '')) at -= 1
  while (at > 0 && !/\s/.test(chars[at - 1] ?? '')) at -= 1
  return at
}

/** `field` after an editing intent; other intents leave it as it is. */
export function editField(field: TextField, intent: KeyIntent): TextField {
  const chars = [...field.text]
  const { cursor } = field
  const cut = (from: number, to: number, at: number): TextField => ({
    ...field,
    text: [...chars.slice(0, from), ...chars.slice(to)].join(''),
    cursor: at,
  })
  switch (intent) {
    case 'cursor.left':
      return { ...field, cursor: Math.max(0, cursor - 1) }
    case 'cursor.right':
      return { ...field, cursor: Math.min(chars.length, cursor + 1) }
    case 'cursor.home':
      return { ...field, cursor: 0 }
    case 'cursor.end':
      return { ...field, cursor: chars.length }
    case 'delete.back':
      return cursor === 0 ? field : cut(cursor - 1, cursor, cursor - 1)
    case 'delete.forward':
      return cursor >= chars.length ? field : cut(cursor, cursor + 1, cursor)
    case 'delete.word': {
      const start = wordStart(chars, cursor)
      return cut(start, cursor, start)
    }
    case 'delete.toStart':
      return cut(0, cursor, 0)
    case 'delete.toEnd':
      return cut(cursor, chars.length, cursor)
    default:
      return field
  }
}
