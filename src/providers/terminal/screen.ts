/**
 * The terminal under one prompt: raw keys and bracketed paste while it is up,
 * and a frame redrawn in place. {@link TerminalScreen.release} puts the
 * terminal back (line mode, paste mode off, cursor shown, input paused) in one
 * synchronous step, so whatever reads the input next gets plain lines.
 */
import { emitKeypressEvents } from 'node:readline'
import type { Keypress } from './keymap.js'
import type { ViewCursor } from './view-model.js'

const PASTE_ON = '\u001b[?2004h'
const PASTE_OFF = '\u001b[?2004l'
const CURSOR_SHOW = '\u001b[?25h'
const CURSOR_HIDE = '\u001b[?25l'

interface RawInput {
  isTTY?: boolean
  isRaw?: boolean
  setRawMode?: (mode: boolean) => unknown
}

/** A prompt's hold on the terminal. */
export interface TerminalScreen {
  /** Replaces the frame on screen with `lines`, the cursor at `cursor` (hidden without one). */
  draw(lines: readonly string[], cursor?: ViewCursor): void
  /** Forgets the frame's place after the screen was cleared (a resize). */
  forget(): void
  /**
   * Erases the frame, prints `lines` in its place (they stay), and gives the
   * terminal back. Idempotent; after it, keys no longer reach the prompt.
   */
  release(lines?: readonly string[]): void
}

/**
 * Takes the terminal for a prompt: `onKey` gets every key until
 * {@link TerminalScreen.release}. The process's exit also gives it back, so a
 * host that exits mid-question does not leave the shell in raw mode.
 */
export function holdTerminal(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  onKey: (key: Keypress) => void,
): TerminalScreen {
  const raw = input as RawInput
  const wasRaw = raw.isRaw === true
  emitKeypressEvents(input)
  raw.setRawMode?.(true)
  const onKeypress = (_text: string | undefined, key: Keypress | undefined) => {
    if (key !== undefined) onKey(key)
    else if (_text !== undefined) onKey({ sequence: _text })
  }
  input.on('keypress', onKeypress)
  input.resume()
  output.write(PASTE_ON)

  let height = 0
  let cursorRow = 0
  let released = false
  const toTop = () => `${cursorRow > 0 ? `\u001b[${cursorRow}A` : ''}\r\u001b[J`

  const restore = () => {
    input.removeListener('keypress', onKeypress)
    raw.setRawMode?.(wasRaw)
    input.pause()
  }
  const onExit = () => {
    if (released) return
    output.write(`${PASTE_OFF}${CURSOR_SHOW}`)
    raw.setRawMode?.(wasRaw)
  }
  process.once('exit', onExit)

  return {
    draw(lines, cursor) {
      if (released) return
      let out = `${CURSOR_HIDE}${height > 0 ? toTop() : ''}${lines.join('\r\n')}`
      if (cursor === undefined) {
        cursorRow = lines.length - 1
      } else {
        const up = lines.length - 1 - cursor.line
        out += `${up > 0 ? `\u001b[${up}A` : ''}\r${cursor.column > 0 ? `\u001b[${cursor.column}C` : ''}${CURSOR_SHOW}`
        cursorRow = cursor.line
      }
      height = lines.length
      output.write(out)
    },
    forget() {
      height = 0
      cursorRow = 0
    },
    release(lines = []) {
      if (released) return
      released = true
      process.removeListener('exit', onExit)
      // The modes go back before anything is printed, and before anyone else can read a key.
      restore()
      const kept = lines.length > 0 ? `${lines.join('\r\n')}\r\n` : ''
      output.write(`${height > 0 ? toTop() : ''}${kept}${PASTE_OFF}${CURSOR_SHOW}`)
    },
  }
}
