import { Writable } from 'node:stream'
import { createActor } from 'xstate'
import { questionnaireAnswer, questionnaireMachine } from '../../machines/index.js'
import type { QuestionnaireOutput } from '../../machines/index.js'
import { UserQuestionError, toUserQuestionError } from '../../protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  ProviderRequest,
  UserQuestionProvider,
} from '../../protocol/index.js'
import { questionnairePrompt } from './prompt.js'
import { createStyle, supportsColor } from './style.js'
import type { TerminalStyle } from './style.js'
import { sanitize, truncate } from './text.js'
import { inquirer } from './inquirer.js'

const { AbortPromptError, ExitPromptError } = inquirer

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

/**
 * A view of the output for one prompt: the prompt library ends the stream it
 * is given when a prompt finishes, and the real output must outlive it.
 */
function promptOutput(output: NodeJS.WritableStream): NodeJS.WritableStream {
  const sized = output as SizedOutput
  const view = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      output.write(chunk, callback)
    },
  })
  Object.defineProperties(view, {
    columns: { get: () => sized.columns },
    rows: { get: () => sized.rows },
    isTTY: { get: () => sized.isTTY },
  })
  return view
}

function describeOutcome(
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
  const why =
    error.code === 'ASK_CANCELLED'
      ? reason === 'discuss'
        ? 'You chose to discuss the plan instead'
        : 'Questions dismissed'
      : error.code === 'ASK_TIMEOUT'
        ? 'The questions timed out'
        : reason === 'caller-aborted'
          ? 'The agent withdrew the questions'
          : reason === 'input-closed'
            ? 'The terminal input closed'
            : reason === 'provider-disposed'
              ? 'The terminal stopped asking'
              : `The questions were withdrawn (${error.code})`
  return ` ${style.danger('✖')} ${why}`
}

/**
 * Creates the terminal provider: one prompt owns the keyboard at a time, and
 * batches that arrive meanwhile queue in order. Each batch drives a
 * `questionnaireMachine` actor; the screen is drawn from its snapshot. An
 * ask's signal (caller abort, deadline, disposal) takes its batch down at
 * once, and the next one appears. Ctrl-C or Esc dismisses the batch on screen
 * (`ASK_CANCELLED`) without touching the host process.
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
  const queue: Entry[] = []
  let current: Entry | undefined
  let disposed = false
  let inputClosed = false
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

  const takeDownAll = (error: UserQuestionError) => {
    for (const entry of [...queue]) entry.settle({ error })
    current?.controller.abort(error)
  }
  const onInputClosed = () => {
    inputClosed = true
    takeDownAll(inputClosedError())
  }
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

  const pump = () => {
    if (current !== undefined || disposed) return
    const entry = queue.shift()
    if (entry === undefined) return
    current = entry
    void present(entry).finally(() => {
      current = undefined
      // Let the caller react to its answer first, so what it prints lands above the next
      // batch instead of inside it.
      setImmediate(pump)
    })
  }

  const present = async (entry: Entry) => {
    const actor = createActor(questionnaireMachine, {
      input: { questions: entry.request.questions },
    }).start()
    let result: QuestionnaireOutput | undefined
    try {
      result = await questionnairePrompt(
        {
          actor,
          style,
          size,
          watchResize,
          signal: entry.controller.signal,
          inputEnded: () => inputClosed || isEnded(input),
        },
        {
          input,
          output: promptOutput(output),
          signal: entry.controller.signal,
          clearPromptOnDone: true,
        },
      )
    } catch (error: unknown) {
      if (error instanceof ExitPromptError) {
        // Ctrl-C reached readline before the view: dismiss through the flow all the same.
        actor.send({ type: 'batch.cancelled' })
        result = actor.getSnapshot().output
      } else if (error instanceof AbortPromptError) {
        const failure = toUserQuestionError(
          entry.controller.signal.reason,
          'ASK_ABORTED',
          'the ask was aborted',
        )
        if (showSummary) output.write(`${withdrawnLine(failure, style)}\n`)
        entry.settle({ error: failure })
      } else {
        entry.settle({ error: toUserQuestionError(error) })
      }
    } finally {
      actor.stop()
    }
    if (result === undefined) return
    try {
      const answer = questionnaireAnswer(result)
      if (showSummary) {
        const lines = describeOutcome(entry.request.questions, answer, style, size().columns)
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
      return queue.length + (current === undefined ? 0 : 1)
    },

    ask(request) {
      if (disposed) return Promise.reject(disposedError())
      if ((input as TtyInput).isTTY !== true) return Promise.reject(notInteractiveError())
      if (inputClosed) return Promise.reject(inputClosedError())
      const { signal } = request
      if (signal.aborted) {
        return Promise.reject(
          toUserQuestionError(signal.reason, 'ASK_ABORTED', 'the ask was aborted'),
        )
      }
      watchInput()
      return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
        let settled = false
        const onAbort = () => {
          if (current === entry) {
            entry.controller.abort(signal.reason)
            return
          }
          entry.settle({
            error: toUserQuestionError(signal.reason, 'ASK_ABORTED', 'the ask was aborted'),
          })
        }
        const entry: Entry = {
          request,
          controller: new AbortController(),
          settle(outcome) {
            if (settled) return
            settled = true
            signal.removeEventListener('abort', onAbort)
            const position = queue.indexOf(entry)
            if (position >= 0) queue.splice(position, 1)
            if ('answer' in outcome) resolve(outcome.answer)
            else reject(outcome.error)
          },
        }
        signal.addEventListener('abort', onAbort, { once: true })
        queue.push(entry)
        pump()
      })
    },

    dispose() {
      if (disposed) return
      disposed = true
      takeDownAll(disposedError())
      unwatchInput()
    },
  }
}
