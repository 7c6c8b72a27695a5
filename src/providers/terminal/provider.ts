import { createActor } from 'xstate'
import {
  questionnaireAnswer,
  questionnaireMachine,
  terminalQueueMachine,
} from '../../machines/index.js'
import type { TerminalQueueDropReason } from '../../machines/index.js'
import { UserQuestionError, toUserQuestionError } from '../../protocol/index.js'
import { importPeer } from '../../protocol/internal.js'
import { durationInWords } from '../../vocabulary/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  ProviderRequest,
  UserQuestionProvider,
} from '../../protocol/index.js'
import { formatMarkdown } from './markdown.js'
import type { MarkdownLexer } from './markdown.js'
import { runQuestionnairePrompt } from './prompt.js'
import { createStyle, supportsColor } from './style.js'
import type { TerminalStyle } from './style.js'
import { sanitize, truncate } from './text.js'

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
}

/** A terminal UI for the question seam; register it with `seam.registerProvider`. */
export interface TerminalProvider extends UserQuestionProvider {
  /** Puts a batch to the user; batches that arrive while one is up wait their turn in order. */
  ask(request: ProviderRequest): Promise<AskUserQuestionAnswer>
  /** How many batches are up or waiting. */
  readonly waiting: number
  /**
   * Takes down the batch on screen and rejects it and every waiting one with
   * `ASK_ABORTED` (`details.reason: 'provider-disposed'`); later asks reject at
   * once. Idempotent.
   */
  dispose(): void
}

interface Entry {
  request: ProviderRequest
  /** When the provider got it: the start of the remaining-time line. */
  receivedAt: number
  /** Aborting it takes the batch down: caller abort, deadline, disposal, closed input. */
  controller: AbortController
  settle: (outcome: { answer: AskUserQuestionAnswer } | { error: UserQuestionError }) => void
}

interface TtyInput {
  isTTY?: boolean
}

interface SizedOutput {
  columns?: number
  rows?: number
  isTTY?: boolean
  on?: (event: 'resize', listener: () => void) => unknown
  off?: (event: 'resize', listener: () => void) => unknown
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
    { details: { reason: 'not-a-tty' } },
  )
}

function disposedError(): UserQuestionError {
  return new UserQuestionError('the terminal provider was disposed', 'ASK_ABORTED', {
    details: { reason: 'provider-disposed' },
  })
}

function inputClosedError(): UserQuestionError {
  return new UserQuestionError(
    'the terminal input closed, so nobody can answer here; ask again from a terminal or another provider',
    'ASK_ABORTED',
    { details: { reason: 'input-closed' } },
  )
}

/** One line per question of an answered batch: its title and what was answered, or skipped. */
export function describeOutcome(
  questions: readonly AskUserQuestionItem[],
  answer: AskUserQuestionAnswer,
  style: TerminalStyle,
  width: number,
): string[] {
  return answer.answers.map((item, index) => {
    const question = questions[index]
    const title = sanitize(question?.header ?? question?.question ?? item.id)
    const parts = [...item.selected, ...(item.custom === undefined ? [] : [`“${item.custom}”`])]
    const value = parts.length === 0 ? 'skipped' : sanitize(parts.join(', '))
    const line = truncate(`${title} · ${value}`, width - 2)
    return parts.length === 0 ? ` ${style.dim(`↷ ${line}`)}` : ` ${style.success('✔')} ${line}`
  })
}

function withdrawnLine(error: UserQuestionError, style: TerminalStyle): string {
  const reason = error.details?.reason
  const waited =
    typeof error.details?.deadline === 'number' && typeof error.details.startedAt === 'number'
      ? ` after ${durationInWords(error.details.deadline - error.details.startedAt)}`
      : ''
  const why =
    error.code === 'ASK_CANCELLED'
      ? reason === 'discuss'
        ? 'You chose to discuss the plan instead'
        : 'Questions dismissed'
      : error.code === 'ASK_TIMEOUT'
        ? `Time ran out${waited}: the agent was told nobody answered`
        : reason === 'caller-aborted'
          ? 'The agent withdrew the questions'
          : reason === 'input-closed'
            ? 'The terminal input closed'
            : reason === 'provider-disposed'
              ? 'The terminal stopped asking'
              : `The questions were withdrawn (${error.code})`
  return ` ${style.danger('✖')} ${why}`
}

/** The lines a batch leaves when it is taken down: why, and what the user had typed. */
function takenDownLines(
  reason: unknown,
  typed: readonly string[],
  style: TerminalStyle,
  width: number,
): string[] {
  const error = toUserQuestionError(reason, 'ASK_ABORTED', 'the ask was aborted')
  return [
    withdrawnLine(error, style),
    ...typed.map(
      (text) => `   ${style.dim(truncate(`You had typed (not sent): “${text}”`, width - 4))}`,
    ),
  ]
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
  const entries = new Map<string, Entry>()
  const queue = createActor(terminalQueueMachine).start()
  let minted = 0
  let watchingInput = false

  const size = () => {
    const sized = output as SizedOutput
    return { columns: sized.columns ?? 80, rows: sized.rows ?? 24 }
  }
  const watchResize = (listener: () => void) => {
    const sized = output as SizedOutput
    // Terminals reflow what is on screen when resized, so the prompt cannot erase its old
    // frame line by line; it starts again on a clear screen (the scrollback keeps the rest).
    const onResize = () => {
      output.write('\u001b[H\u001b[2J')
      listener()
    }
    sized.on?.('resize', onResize)
    return () => void sized.off?.('resize', onResize)
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
    void present(entry).finally(() => queue.send({ type: 'prompt.ended', askId }))
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

  const present = async (entry: Entry) => {
    const { request, controller } = entry
    const actor = createActor(questionnaireMachine, {
      input: { questions: request.questions },
    }).start()
    const isPlan = actor.getSnapshot().value === 'planReview'
    const lexer = isPlan ? await loadMarkdown() : undefined
    const plan = request.questions[0]?.detail ?? ''
    const takenDown = (reason: unknown, typed: readonly string[]) =>
      showSummary ? takenDownLines(reason, typed, style, size().columns) : []
    if (controller.signal.aborted) {
      // Taken down while the formatter loaded: nothing was drawn, so only the reason is printed.
      output.write(
        takenDown(controller.signal.reason, [])
          .map((line) => `${line}\n`)
          .join(''),
      )
    }
    let result
    try {
      result = await runQuestionnairePrompt({
        actor,
        style,
        input,
        output,
        size,
        watchResize,
        signal: controller.signal,
        takenDown,
        ...(request.deadline === undefined
          ? {}
          : { deadline: { at: request.deadline, since: entry.receivedAt } }),
        ...(lexer === undefined
          ? {}
          : { formatPlan: (width: number) => formatMarkdown(lexer, plan, style, width) }),
      })
    } catch (error: unknown) {
      entry.settle({ error: toUserQuestionError(error) })
      return
    } finally {
      actor.stop()
    }
    if (result === undefined) {
      entry.settle({
        error: toUserQuestionError(controller.signal.reason, 'ASK_ABORTED', 'the ask was aborted'),
      })
      return
    }
    try {
      const answer = questionnaireAnswer(result)
      if (showSummary) {
        const lines = describeOutcome(request.questions, answer, style, size().columns)
        output.write(`${lines.join('\n')}\n`)
      }
      entry.settle({ answer })
    } catch (error: unknown) {
      const failure = toUserQuestionError(error)
      if (showSummary) output.write(`${withdrawnLine(failure, style)}\n`)
      entry.settle({ error: failure })
    }
  }

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
      watchInput()
      // The seam's askId may repeat across seams (or in tests); the queue needs its own.
      const askId = `terminal-${++minted}`
      return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
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
            if ('answer' in outcome) resolve(outcome.answer)
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
    },
  }
}
