/**
 * One batch on screen: its questionnaire actor, the prompt that drives it,
 * and how it settles its ask — with the answer, or with why it went — and
 * what it leaves on screen.
 */
import { createActor } from 'xstate'
import { questionnaireAnswer, questionnaireMachine } from '../../machines/index.js'
import { toUserQuestionError } from '../../protocol/index.js'
import type {
  AskUserQuestionAnswer,
  ProviderRequest,
  UserQuestionError,
} from '../../protocol/index.js'
import { formatMarkdown } from './markdown.js'
import type { MarkdownLexer } from './markdown.js'
import { describeOutcome, takenDownLines, withdrawnLine } from './outcome-lines.js'
import { runQuestionnairePrompt } from './prompt.js'
import { approvalsText } from './responders.js'
import type { TerminalStyle } from './style.js'

/** An ask the terminal holds, from its arrival until it settles. */
export interface Entry {
  request: ProviderRequest
  /** When the provider got it: the start of the remaining-time line. */
  receivedAt: number
  /** Aborting it takes the batch down: caller abort, deadline, disposal, closed input. */
  controller: AbortController
  settle: (outcome: { answer: AskUserQuestionAnswer } | { error: UserQuestionError }) => void
}

interface SizedOutput {
  columns?: number
  rows?: number
  isTTY?: boolean
  on?: (event: 'resize', listener: () => void) => unknown
  off?: (event: 'resize', listener: () => void) => unknown
}

/** The terminal's size now (80×24 when the output does not say). */
function terminalSize(output: NodeJS.WritableStream): { columns: number; rows: number } {
  const sized = output as SizedOutput
  return { columns: sized.columns ?? 80, rows: sized.rows ?? 24 }
}

/** Calls `listener` after the terminal was resized and cleared; returns the unsubscriber. */
function watchResize(output: NodeJS.WritableStream, listener: () => void): () => void {
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

/** What presenting a batch needs of its provider. */
export interface BatchTerminal {
  input: NodeJS.ReadableStream
  output: NodeJS.WritableStream
  style: TerminalStyle
  /** Whether a batch leaves its summary (or why it went) on screen. */
  showSummary: boolean
  /** The markdown lexer a plan is formatted with, when there is one. */
  loadMarkdown: () => Promise<MarkdownLexer | undefined>
}

/**
 * Puts `entry`'s batch on screen until it ends, then settles the entry: with
 * the answer, or with why the batch went.
 */
export async function presentBatch(entry: Entry, terminal: BatchTerminal): Promise<void> {
  const { input, output, style, showSummary, loadMarkdown } = terminal
  const size = () => terminalSize(output)
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
      watchResize: (listener) => watchResize(output, listener),
      signal: controller.signal,
      takenDown,
      ...(request.deadline === undefined
        ? {}
        : { deadline: { at: request.deadline, since: entry.receivedAt } }),
      ...(request.approvals === undefined ? {} : { note: approvalsText(request.approvals) }),
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
