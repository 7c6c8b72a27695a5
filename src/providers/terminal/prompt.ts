import { draftOf } from '../../machines/index.js'
import type { QuestionnaireContext, QuestionnaireOutput } from '../../machines/index.js'
import type { Keypress } from './keymap.js'
import { printableOf } from './keymap.js'
import type { StyledLine } from './markdown.js'
import { handleKey } from './prompt-keys.js'
import { modeOf, openingView, pasteInto } from './prompt-view.js'
import type { QuestionnaireActor } from './prompt-view.js'
import { holdTerminal } from './screen.js'
import type { TerminalStyle } from './style.js'
import { remainingText, sanitize } from './text.js'
import { renderView } from './view.js'
import type { ViewClock, ViewState } from './view-model.js'

/** What the questionnaire prompt is given: the flow's actor, the streams and how to draw. */
export interface QuestionnairePromptOptions {
  /** A started `questionnaireMachine` actor; the prompt sends it the user's actions. */
  actor: QuestionnaireActor
  style: TerminalStyle
  input: NodeJS.ReadableStream
  output: NodeJS.WritableStream
  /** The terminal's size now. */
  size: () => { columns: number; rows: number }
  /** Calls `listener` after the terminal was resized and cleared; returns the unsubscriber. */
  watchResize: (listener: () => void) => () => void
  /**
   * The batch's take-down signal (caller abort, deadline, disposal, closed
   * input). On abort the prompt gives the terminal back at once, in the abort
   * listener, so nothing that runs after it finds the terminal in raw mode.
   */
  signal: AbortSignal
  /** The lines left on screen when the batch is taken down, given the abort reason and what was typed. */
  takenDown: (reason: unknown, typed: readonly string[]) => string[]
  /** When the ask times out (epoch ms) and when it began, for the remaining-time line. */
  deadline?: { at: number; since: number }
  /** The plan, formatted for a width, when the batch is a plan review and a formatter is loaded. */
  formatPlan?: (width: number) => StyledLine[]
  /** A line above the question, e.g. "1 of 2 approvals: alice". */
  note?: string
  /** @default Date.now */
  now?: () => number
}

/** What the user typed and would lose if the batch went down now. */
function typedTexts(context: QuestionnaireContext, view: ViewState): string[] {
  const texts = context.questions
    .map((question) => (draftOf(context, question.id).custom ?? '').trim())
    .filter((text) => text !== '')
  const field = view.field.text.trim()
  if (field !== '' && !texts.includes(field)) texts.push(field)
  return texts.map((text) => sanitize(text))
}

/**
 * One prompt for a whole batch. It holds only view state (highlight, the text
 * field, the review overlay, the dismiss question); every answer-shaping
 * action is an event sent to the questionnaire actor, what a key means comes
 * from the key map, and the screen is drawn from the actor's snapshot.
 * Resolves with the actor's output when the flow ends, or `undefined` when
 * the batch is taken down.
 */
export function runQuestionnairePrompt(
  options: QuestionnairePromptOptions,
): Promise<QuestionnaireOutput | undefined> {
  const { actor, style, signal } = options
  const now = options.now ?? Date.now
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(undefined)
      return
    }
    let view = openingView(actor.getSnapshot())
    let pasting = false
    let pasted = ''
    let finished = false
    let planStart = 0

    const clock = (): ViewClock | undefined => {
      const deadline = options.deadline
      if (deadline === undefined) return undefined
      const left = Math.max(0, deadline.at - now())
      const total = Math.max(1, deadline.at - deadline.since)
      return { text: `${remainingText(left)} left to answer`, urgent: left <= total / 10 }
    }
    let planWidth = -1
    let plan: StyledLine[] | undefined
    const planFor = (columns: number) => {
      if (options.formatPlan === undefined) return undefined
      if (columns !== planWidth) {
        planWidth = columns
        plan = options.formatPlan(Math.max(20, columns - 2) - 2)
      }
      return plan
    }

    const render = () => {
      const snapshot = actor.getSnapshot()
      if (finished || snapshot.status !== 'active') return
      const size = options.size()
      const formatted = modeOf(snapshot) === 'planReview' ? planFor(size.columns) : undefined
      const ticking = clock()
      const frame = renderView({
        context: snapshot.context,
        mode: modeOf(snapshot),
        view,
        style,
        columns: size.columns,
        rows: size.rows,
        canSubmit: snapshot.can({ type: 'batch.submitted' }),
        ...(ticking === undefined ? {} : { clock: ticking }),
        ...(options.note === undefined ? {} : { note: options.note }),
        ...(formatted === undefined ? {} : { plan: formatted }),
      })
      planStart = frame.planStart ?? 0
      screen.draw(frame.lines, frame.cursor)
    }

    const onKey = (key: Keypress) => {
      const before = actor.getSnapshot()
      if (finished || before.status !== 'active') return
      if (key.name === 'paste-start') {
        pasting = true
        pasted = ''
        return
      }
      if (pasting) {
        // Inside a paste nothing is a command: Enter is a line break, never "confirm" or "submit".
        if (key.name === 'paste-end') {
          pasting = false
          view = pasteInto(actor, before, view, pasted)
          render()
        } else if (key.name === 'return') pasted += '\r'
        else if (key.name === 'enter') pasted += '\n'
        else if (key.name === 'tab') pasted += '\t'
        else pasted += printableOf(key) ?? ''
        return
      }
      view = handleKey({ actor, size: options.size, planStart }, before, view, key)
      render()
    }

    const finish = (lines: string[]) => {
      if (finished) return false
      finished = true
      clearInterval(ticker)
      subscription.unsubscribe()
      stopWatching()
      signal.removeEventListener('abort', onAbort)
      screen.release(lines)
      return true
    }
    const onAbort = () => {
      const snapshot = actor.getSnapshot()
      if (finish(options.takenDown(signal.reason, typedTexts(snapshot.context, view)))) {
        resolve(undefined)
      }
    }

    const screen = holdTerminal(options.input, options.output, onKey)
    const subscription = actor.subscribe((snapshot) => {
      if (snapshot.status === 'done' && snapshot.output !== undefined) {
        const output = snapshot.output
        if (finish([])) resolve(output)
      }
    })
    const stopWatching = options.watchResize(() => {
      screen.forget()
      render()
    })
    const ticker = setInterval(render, 1000)
    ticker.unref()
    if (options.deadline === undefined) clearInterval(ticker)
    signal.addEventListener('abort', onAbort, { once: true })
    render()
  })
}
