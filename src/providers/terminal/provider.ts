import { createActor } from 'xstate'
import { terminalQueueMachine } from '../../machines/index.js'
import type { TerminalQueueDropReason } from '../../machines/index.js'
import { UserQuestionError, toUserQuestionError } from '../../protocol/index.js'
import { importPeer } from '../../protocol/internal.js'
import type { ProviderRequest, UserQuestionProvider } from '../../protocol/index.js'
import { AskEndReasons } from '../../vocabulary/index.js'
import type { ProviderAnswer, Responder } from '../../vocabulary/index.js'
import type { MarkdownLexer } from './markdown.js'
import { presentBatch } from './present.js'
import type { BatchTerminal, Entry } from './present.js'
import { osResponder, standingLine, verdictLine } from './responders.js'
import { createStyle, supportsColor } from './style.js'

/** Options of {@link createTerminalProvider}. */
export interface TerminalProviderOptions {
  /** Where keys come from; must be a TTY. @default process.stdin */
  input?: NodeJS.ReadableStream
  /** Where the questions are drawn. @default process.stdout */
  output?: NodeJS.WritableStream
  /**
   * Colours on or off. @default automatic: off with `NO_COLOR`, on with
   * `FORCE_COLOR`, otherwise whatever the output terminal supports
   */
  color?: boolean
  /**
   * After each batch, print one line per question saying what was answered
   * (or that the batch was dismissed or withdrawn). @default true
   */
  summary?: boolean
  /**
   * Who answers here (DESIGN §12): every answer carries it as `by`, and an
   * ask whose `answerers` do not admit it is shown as a line saying whom it
   * waits for, never as a prompt. Set it when the host knows the person
   * better than the OS does, or in tests.
   * @default `{ id: os.userInfo().username, via: 'terminal' }`
   */
  responder?: Responder
}

/** A terminal UI for the question seam; register it with `seam.registerProvider`. */
export interface TerminalProvider extends UserQuestionProvider {
  /**
   * Puts a batch to the user; batches that arrive while one is up wait their
   * turn in order. Resolves with the answers and `by`, the responder here.
   * An ask this responder may not answer (or approved already) is a line on
   * screen instead, and waits until it ends elsewhere.
   */
  ask(request: ProviderRequest): Promise<ProviderAnswer>
  /** How many batches are up or waiting. */
  readonly waiting: number
  /**
   * Takes down the batch on screen and rejects it and every waiting one with
   * `ASK_ABORTED` (`details.reason: 'provider-disposed'`); later asks reject at
   * once. Idempotent.
   */
  dispose(): void
}

interface TtyInput {
  isTTY?: boolean
}

function isEnded(input: NodeJS.ReadableStream): boolean {
  const stream = input as { readableEnded?: boolean; destroyed?: boolean }
  return stream.readableEnded === true || stream.destroyed === true
}

/** The error for an input that is not a terminal: the message says what to do instead. */
export function notInteractiveError(): UserQuestionError {
  return new UserQuestionError(
    'the terminal provider needs an interactive terminal, but its input is not a TTY: run the program in a terminal, or answer from another provider such as the web console (askseam/web)',
    'PROVIDER_FAILED',
    { details: { reason: AskEndReasons.NOT_A_TTY } },
  )
}

function disposedError(): UserQuestionError {
  return new UserQuestionError('the terminal provider was disposed', 'ASK_ABORTED', {
    details: { reason: AskEndReasons.PROVIDER_DISPOSED },
  })
}

function inputClosedError(): UserQuestionError {
  return new UserQuestionError(
    'the terminal input closed, so nobody can answer here; ask again from a terminal or another provider',
    'ASK_ABORTED',
    { details: { reason: AskEndReasons.INPUT_CLOSED } },
  )
}

// `marked` is this entry point's optional peer (DESIGN §1): loaded once, here,
// so importing askseam/terminal without it throws one line naming it.
const marked = await importPeer('askseam/terminal', 'marked', () => import('marked'))
const markdownLexer: MarkdownLexer = (text) => marked.lexer(text, { gfm: true })

/** The markdown lexer plans are formatted with. */
function loadMarkdown(): Promise<MarkdownLexer | undefined> {
  return Promise.resolve(markdownLexer)
}

/**
 * Creates the terminal provider: one prompt owns the keyboard at a time, and
 * batches that arrive meanwhile queue in order (`terminalQueueMachine`
 * decides whose turn it is). Each batch drives a `questionnaireMachine`
 * actor; the screen is drawn from its snapshot. An ask's signal (caller
 * abort, deadline, disposal) takes its batch down at once: the terminal is
 * given back (line mode, paste mode off, cursor shown) before the asker hears
 * of it, what the user typed stays on screen, and the next batch appears.
 * Esc or Ctrl-C dismisses the batch on screen (`ASK_CANCELLED`), asking
 * first when something is answered, without touching the host process. A
 * plan review's markdown is formatted with `marked` when it is installed (an
 * optional peer), and shown as its text when it is not.
 *
 * @example
 * ```ts
 * import { createUserQuestions } from 'askseam'
 * import { createTerminalProvider } from 'askseam/terminal'
 *
 * const seam = createUserQuestions({ timeoutMs: 120_000 })
 * const terminal = createTerminalProvider()
 * const unregister = seam.registerProvider(terminal)
 * const { answers } = await seam.ask({ questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] }] })
 * unregister()
 * terminal.dispose()
 * ```
 */
export function createTerminalProvider(options: TerminalProviderOptions = {}): TerminalProvider {
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const style = createStyle(options.color ?? supportsColor(output))
  const showSummary = options.summary ?? true
  const responder = options.responder ?? osResponder()
  const entries = new Map<string, Entry>()
  const queue = createActor(terminalQueueMachine).start()
  let minted = 0
  let watchingInput = false
  const terminal: BatchTerminal = { input, output, style, showSummary, loadMarkdown }
  // A pty that reports no size says 0 columns.
  const columns = () => (output as { columns?: number }).columns || 80
  // Asks shown only as a line (not this responder's to answer), each held until it ends elsewhere.
  const standing = new Set<(error: UserQuestionError) => void>()
  // A prompt keeps the host process up by reading its input; an ask shown only as a line reads
  // nothing, so this timer does, until the last such ask ends.
  let keepUp: ReturnType<typeof setInterval> | undefined

  // A line written while a prompt owns the screen would break its redrawing: it waits for the prompt to end.
  const held: string[] = []
  const say = (line: string) => {
    if (queue.getSnapshot().context.current === null) output.write(`${line}\n`)
    else held.push(line)
  }
  const flush = () => {
    if (held.length > 0)
      output.write(
        held
          .splice(0)
          .map((line) => `${line}\n`)
          .join(''),
      )
  }

  const errorFor = (entry: Entry, reason: TerminalQueueDropReason): UserQuestionError => {
    if (reason === 'provider-disposed') return disposedError()
    if (reason === 'input-closed') return inputClosedError()
    return toUserQuestionError(entry.request.signal.reason, 'ASK_ABORTED', 'the ask was aborted')
  }
  queue.on('ask.dropped', ({ askId, reason }) => {
    const entry = entries.get(askId)
    if (entry !== undefined) entry.settle({ error: errorFor(entry, reason) })
  })
  queue.on('prompt.takenDown', ({ askId, reason }) => {
    const entry = entries.get(askId)
    if (entry !== undefined) entry.controller.abort(errorFor(entry, reason))
  })
  queue.on('prompt.requested', ({ askId }) => {
    const entry = entries.get(askId)
    if (entry === undefined) return
    void presentBatch(entry, terminal).finally(() => {
      flush()
      queue.send({ type: 'prompt.ended', askId })
    })
  })

  const onInputClosed = () => queue.send({ type: 'input.closed' })
  const watchInput = () => {
    if (watchingInput) return
    watchingInput = true
    input.on('end', onInputClosed)
    input.on('close', onInputClosed)
  }
  const unwatchInput = () => {
    if (!watchingInput) return
    watchingInput = false
    input.removeListener('end', onInputClosed)
    input.removeListener('close', onInputClosed)
  }

  /** An ask this responder may not answer: one line, then nothing until it ends elsewhere. */
  const waitElsewhere = (request: ProviderRequest, line: string) =>
    new Promise<ProviderAnswer>((_resolve, reject) => {
      const { signal } = request
      const drop = (error: UserQuestionError) => {
        standing.delete(drop)
        if (standing.size === 0) {
          clearInterval(keepUp)
          keepUp = undefined
        }
        signal.removeEventListener('abort', onAbort)
        reject(error)
      }
      const onAbort = () =>
        drop(toUserQuestionError(signal.reason, 'ASK_ABORTED', 'the ask was aborted'))
      standing.add(drop)
      keepUp ??= setInterval(() => undefined, 2 ** 31 - 1)
      signal.addEventListener('abort', onAbort, { once: true })
      say(line)
    })

  return {
    get waiting() {
      const { waiting, current } = queue.getSnapshot().context
      return waiting.length + (current === null ? 0 : 1)
    },

    ask(request) {
      const state = queue.getSnapshot()
      if (state.matches('disposed')) return Promise.reject(disposedError())
      if ((input as TtyInput).isTTY !== true) return Promise.reject(notInteractiveError())
      if (state.matches('inputClosed') || isEnded(input)) return Promise.reject(inputClosedError())
      const { signal } = request
      if (signal.aborted) {
        return Promise.reject(
          toUserQuestionError(signal.reason, 'ASK_ABORTED', 'the ask was aborted'),
        )
      }
      const line = standingLine(request, responder, style, columns())
      if (line !== undefined) return waitElsewhere(request, line)
      watchInput()
      void request.settlement?.then((verdict) => {
        const said = verdictLine(verdict, style)
        if (said !== undefined) say(said)
      })
      // The seam's askId may repeat across seams (or in tests); the queue needs its own.
      const askId = `terminal-${++minted}`
      return new Promise<ProviderAnswer>((resolve, reject) => {
        let settled = false
        const onAbort = () => queue.send({ type: 'ask.withdrawn', askId })
        const entry: Entry = {
          request,
          receivedAt: Date.now(),
          controller: new AbortController(),
          settle(outcome) {
            if (settled) return
            settled = true
            signal.removeEventListener('abort', onAbort)
            entries.delete(askId)
            if ('answer' in outcome) resolve({ ...outcome.answer, by: { ...responder } })
            else reject(outcome.error)
          },
        }
        entries.set(askId, entry)
        signal.addEventListener('abort', onAbort, { once: true })
        queue.send({ type: 'ask.queued', askId })
      })
    },

    dispose() {
      if (queue.getSnapshot().matches('disposed')) return
      queue.send({ type: 'provider.disposed' })
      unwatchInput()
      for (const drop of [...standing]) drop(disposedError())
    },
  }
}
