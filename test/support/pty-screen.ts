import path from 'node:path'
import { tmpdir } from 'node:os'
/**
 * A program in a real pseudo-terminal, with a screen model: keystrokes go in
 * through the pty, and what the user would see is read from a headless xterm
 * fed with everything the program wrote. Waits are on screen or output
 * content, with a generous timeout, never on fixed sleeps.
 */
import { stripVTControlCharacters } from 'node:util'
import { spawn } from '@lydell/node-pty'
import xterm from '@xterm/headless'

const { Terminal } = xterm

/** How the program is started. */
export interface PtyOptions {
  command: string
  args: string[]
  cwd: string
  env?: Record<string, string | undefined>
  columns?: number
  rows?: number
}

/** A running program in a pty. */
export interface PtySession {
  /** The visible screen, one string per row, trailing blanks trimmed. */
  screenLines(): string[]
  /** The visible screen as text. */
  screen(): string
  /** Everything written so far, escape sequences stripped. */
  transcript(): string
  /** Everything written so far, exactly as written (escape sequences kept). */
  raw(): string
  /** Resolves with the screen once `test` holds for it (checked after every write). */
  waitForScreen(
    test: string | RegExp | ((screen: string) => boolean),
    timeoutMs?: number,
  ): Promise<string>
  /** Resolves with the transcript once `test` holds for it. */
  waitForOutput(test: string | RegExp, timeoutMs?: number): Promise<string>
  /** Types keys (raw bytes, e.g. '\r', '\u001b[B'). */
  type(keys: string): void
  resize(columns: number, rows: number): void
  /** Resolves when the program exits. */
  exited: Promise<{ exitCode: number; signal?: number }>
  kill(signal?: string): void
}

/** Key sequences as a terminal sends them. */
export const Keys = {
  enter: '\r',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  tab: '\t',
  shiftTab: '\u001b[Z',
  escape: '\u001b',
  ctrlC: '\u0003',
  ctrlS: '\u0013',
  ctrlU: '\u0015',
  backspace: '\u007f',
  space: ' ',
} as const

const DEFAULT_TIMEOUT = 20_000

function matches(test: string | RegExp | ((text: string) => boolean), text: string): boolean {
  if (typeof test === 'string') return text.includes(test)
  if (test instanceof RegExp) return test.test(text)
  return test(text)
}

/** Starts `command` in a pty of the given size (default 100×30). */
let sessions = 0

export function startPty(options: PtyOptions): PtySession {
  const columns = options.columns ?? 100
  const rows = options.rows ?? 30
  const terminal = new Terminal({ cols: columns, rows, allowProposedApi: true, scrollback: 1000 })
  const env: Record<string, string> = {}
  // Each demo in a test keeps its asks in a file of its own: demos sharing one
  // store would present each other's questions.
  const demoStore = path.join(tmpdir(), `askseam-demo-test-${process.pid}-${++sessions}.sqlite`)
  for (const [key, value] of Object.entries({
    ASKSEAM_DEMO_STORE: demoStore,
    ...process.env,
    ...options.env,
  })) {
    if (value !== undefined) env[key] = value
  }
  const child = spawn(options.command, options.args, {
    name: 'xterm-256color',
    cols: columns,
    rows,
    cwd: options.cwd,
    env,
  })
  let raw = ''
  const listeners = new Set<() => void>()
  child.onData((data) => {
    raw += data
    terminal.write(data, () => {
      for (const listener of [...listeners]) listener()
    })
  })
  const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => {
    child.onExit(({ exitCode, signal }) => {
      // Let the screen model catch up with the last bytes before anyone reads it.
      terminal.write('', () => {
        resolve(signal === undefined || signal === 0 ? { exitCode } : { exitCode, signal })
        for (const listener of [...listeners]) listener()
      })
    })
  })
  let done = false
  void exited.then(() => {
    done = true
  })

  const screenLines = () => {
    const buffer = terminal.buffer.active
    const lines: string[] = []
    for (let row = 0; row < terminal.rows; row += 1) {
      lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '')
    }
    return lines
  }
  const screen = () => screenLines().join('\n')
  const transcript = () => stripVTControlCharacters(raw).replace(/\r/g, '')

  const waitFor = (
    read: () => string,
    test: string | RegExp | ((text: string) => boolean),
    what: string,
    timeoutMs: number,
  ) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const text = read()
        if (matches(test, text)) {
          cleanup()
          resolve(text)
        } else if (done) {
          cleanup()
          reject(
            new Error(
              `the program exited before the ${what} showed ${String(test)}:\n${screen()}\n--- transcript tail ---\n${transcript().slice(-2000)}`,
            ),
          )
        }
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(
          new Error(
            `timed out waiting for the ${what} to show ${String(test)}; the screen is:\n${screen()}`,
          ),
        )
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        listeners.delete(check)
      }
      listeners.add(check)
      check()
    })

  return {
    screenLines,
    screen,
    transcript,
    raw: () => raw,
    waitForScreen: (test, timeoutMs = DEFAULT_TIMEOUT) =>
      waitFor(screen, test, 'screen', timeoutMs),
    waitForOutput: (test, timeoutMs = DEFAULT_TIMEOUT) =>
      waitFor(transcript, test, 'output', timeoutMs),
    type: (keys) => child.write(keys),
    resize(nextColumns, nextRows) {
      terminal.resize(nextColumns, nextRows)
      child.resize(nextColumns, nextRows)
    },
    exited,
    kill: (signal) => {
      if (!done) child.kill(signal)
    },
  }
}
