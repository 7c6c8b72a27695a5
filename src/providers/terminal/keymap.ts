/**
 * The terminal's keys as data: for each focus, which key means which intent.
 * The prompt looks a key up here and acts on the intent; nothing else in the
 * terminal decides what a key does, so the hints, the tests and the code read
 * the same table.
 */

/** Where the keyboard is: the option list, a text field, the review screen, or the "dismiss?" question. */
export type KeyFocus = 'list' | 'text' | 'review' | 'confirm'

/** What a key asks for. */
export type KeyIntent =
  | 'focus.up'
  | 'focus.down'
  /** Tab: the next question (skipping this one if it is still open). */
  | 'question.forward'
  /** Shift-Tab and ← outside text: the previous question. */
  | 'question.back'
  /** → outside text: the next question, leaving this one as it is. */
  | 'question.next'
  /** Enter: choose, confirm or send what has focus. */
  | 'activate'
  | 'toggle'
  /** A digit outside text: the option with that number. */
  | 'pick'
  | 'review.open'
  /** Esc outside text: dismiss the batch (asks first when something is answered). */
  | 'batch.dismiss'
  /** Ctrl-C: dismiss the batch (asks first when something is answered). */
  | 'batch.interrupt'
  /** Esc in a text field: leave the field, keeping what was typed. */
  | 'field.leave'
  | 'cursor.left'
  | 'cursor.right'
  | 'cursor.home'
  | 'cursor.end'
  | 'delete.back'
  | 'delete.forward'
  | 'delete.word'
  | 'delete.toStart'
  | 'delete.toEnd'
  /** A printable character typed into a text field. */
  | 'insert'
  | 'paste.start'
  | 'paste.end'
  | 'confirm.yes'
  | 'confirm.no'

/** A key as Node's keypress decoder reports it. */
export interface Keypress {
  name?: string
  ctrl?: boolean
  shift?: boolean
  meta?: boolean
  sequence?: string
}

/** One line of the key map: the keys (`name`, or `ctrl+name`, `shift+name`) and their intent. */
export interface KeyBinding {
  readonly keys: readonly string[]
  readonly intent: KeyIntent
}

const everywhere: readonly KeyBinding[] = [
  { keys: ['ctrl+c'], intent: 'batch.interrupt' },
  { keys: ['paste-start'], intent: 'paste.start' },
  { keys: ['paste-end'], intent: 'paste.end' },
  { keys: ['ctrl+s'], intent: 'review.open' },
  { keys: ['up'], intent: 'focus.up' },
  { keys: ['down'], intent: 'focus.down' },
  { keys: ['return', 'enter'], intent: 'activate' },
]

/** The key map (**the** place a key's meaning is decided). */
export const KEY_MAP: Readonly<Record<KeyFocus, readonly KeyBinding[]>> = {
  list: [
    ...everywhere,
    // Ctrl-D is end-of-input in a shell: outside a text field it dismisses, as Esc does.
    { keys: ['escape', 'ctrl+d'], intent: 'batch.dismiss' },
    { keys: ['tab'], intent: 'question.forward' },
    { keys: ['shift+tab', 'left'], intent: 'question.back' },
    { keys: ['right'], intent: 'question.next' },
    { keys: ['space'], intent: 'toggle' },
    { keys: ['1', '2', '3', '4', '5', '6', '7', '8', '9'], intent: 'pick' },
  ],
  text: [
    ...everywhere,
    { keys: ['escape'], intent: 'field.leave' },
    { keys: ['tab'], intent: 'question.forward' },
    { keys: ['shift+tab'], intent: 'question.back' },
    { keys: ['left', 'ctrl+b'], intent: 'cursor.left' },
    { keys: ['right', 'ctrl+f'], intent: 'cursor.right' },
    { keys: ['home', 'ctrl+a'], intent: 'cursor.home' },
    { keys: ['end', 'ctrl+e'], intent: 'cursor.end' },
    { keys: ['backspace', 'ctrl+h'], intent: 'delete.back' },
    { keys: ['delete', 'ctrl+d'], intent: 'delete.forward' },
    { keys: ['ctrl+w', 'meta+backspace'], intent: 'delete.word' },
    { keys: ['ctrl+u'], intent: 'delete.toStart' },
    { keys: ['ctrl+k'], intent: 'delete.toEnd' },
  ],
  review: [
    ...everywhere,
    { keys: ['escape'], intent: 'batch.dismiss' },
    { keys: ['shift+tab', 'left'], intent: 'question.back' },
  ],
  confirm: [
    { keys: ['y', 'return', 'enter', 'ctrl+c'], intent: 'confirm.yes' },
    { keys: ['n', 'escape'], intent: 'confirm.no' },
  ],
}

function spelled(key: Keypress): string {
  const name = key.name ?? ''
  // Node reports a lone Esc with meta set (Esc is how terminals spell Alt).
  if (name === 'escape') return name
  if (key.ctrl === true) return `ctrl+${name}`
  if (key.meta === true) return `meta+${name}`
  if (key.shift === true && name === 'tab') return 'shift+tab'
  return name
}

/** Whether a key is a printable character (what a text field inserts). */
export function printableOf(key: Keypress): string | undefined {
  if (key.ctrl === true || key.meta === true) return undefined
  const sequence = key.sequence ?? ''
  // One character (a surrogate pair counts as one), and not a control character.
  if ([...sequence].length !== 1) return undefined
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f-\u009f]/.test(sequence) ? undefined : sequence
}

/** The intent of `key` where the keyboard is, or undefined when the key means nothing there. */
export function intentOf(focus: KeyFocus, key: Keypress): KeyIntent | undefined {
  const name = spelled(key)
  const binding = KEY_MAP[focus].find((entry) => entry.keys.includes(name))
  if (binding !== undefined) return binding.intent
  if (focus === 'text' && printableOf(key) !== undefined) return 'insert'
  return undefined
}
