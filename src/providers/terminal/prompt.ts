import type { Actor, SnapshotFrom } from 'xstate'
import { draftOf, isQuestionAnswered } from '../../machines/index.js'
import type {
  QuestionnaireContext,
  QuestionnaireEvent,
  QuestionnaireOutput,
  questionnaireMachine,
} from '../../machines/index.js'
import { editField, fieldOf, insertText } from './field.js'
import type { KeyFocus, Keypress } from './keymap.js'
import { intentOf, printableOf } from './keymap.js'
import type { StyledLine } from './markdown.js'
import { holdTerminal } from './screen.js'
import type { TerminalStyle } from './style.js'
import { remainingText, sanitize } from './text.js'
import { renderView } from './view.js'
import { blankView, isTextRow, rowsOf } from './view-model.js'
import type { ViewClock, ViewRow, ViewState } from './view-model.js'

type QuestionnaireActor = Actor<typeof questionnaireMachine>
type QuestionnaireSnapshot = SnapshotFrom<typeof questionnaireMachine>

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
  /** @default Date.now */
  now?: () => number
}

type Mode = 'answering' | 'planReview'

function modeOf(snapshot: QuestionnaireSnapshot): Mode {
  return snapshot.value === 'planReview' ? 'planReview' : 'answering'
}

/** The view a question opens with: the highlight on its current answer, its text in the field. */
export function openingView(snapshot: QuestionnaireSnapshot): ViewState {
  const { context } = snapshot
  const mode = modeOf(snapshot)
  if (mode === 'planReview') return { ...blankView(0), field: fieldOf('', true) }
  const question = context.questions[context.index]
  const draft = draftOf(context, question?.id ?? '')
  const rows = rowsOf(context, mode, { reviewing: false })
  const chosen = rows.findIndex(
    (row) => row.kind === 'option' && !draft.skipped && draft.selected.includes(row.option.label),
  )
  const focus =
    draft.custom !== undefined || chosen < 0
      ? draft.custom !== undefined
        ? rows.length - 1
        : 0
      : chosen
  return {
    ...blankView(focus),
    field: fieldOf(draft.custom ?? '', false),
    editing: isTextRow(rows[focus]),
  }
}

function unsettledHeaders(context: QuestionnaireContext): string {
  const open = context.questions
    .map((question, index) => ({ question, index }))
    .filter(({ question }) => !isQuestionAnswered(context, question.id))
  const names = open
    .slice(0, 4)
    .map(({ question, index }) => sanitize(question.header ?? `Q${index + 1}`))
  return `${names.join(', ')}${open.length > 4 ? ` and ${open.length - 4} more` : ''}`
}

/** Whether anything would be lost by dismissing: a choice, typed text, or feedback in the field. */
function hasWork(context: QuestionnaireContext, view: ViewState): boolean {
  if (view.field.text.trim() !== '') return true
  return context.questions.some((question) => {
    const draft = draftOf(context, question.id)
    return draft.selected.length > 0 || (draft.custom ?? '').trim() !== ''
  })
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
          view = pasteInto(before, view, pasted)
          render()
        } else if (key.name === 'return') pasted += '\r'
        else if (key.name === 'enter') pasted += '\n'
        else if (key.name === 'tab') pasted += '\t'
        else pasted += printableOf(key) ?? ''
        return
      }
      view = handleKey(before, view, key)
      render()
    }

    /** The view after a paste: the text goes into the screen's text field at the cursor. */
    function pasteInto(before: QuestionnaireSnapshot, state: ViewState, text: string): ViewState {
      if (state.reviewing || state.confirming === true) return state
      const rows = rowsOf(before.context, modeOf(before), state)
      const target = isTextRow(rows[state.focus])
        ? state.focus
        : rows.findIndex((row) => isTextRow(row))
      if (target < 0) return state
      const entering = target !== state.focus || !state.editing
      const base: ViewState = { ...state, focus: target, editing: true }
      const field =
        entering && rows[target]?.kind === 'custom' ? syncedField(before, base) : base.field
      const next = { ...base, field: insertText(field, text) }
      typeInto(rows[target], next)
      return next
    }

    function syncedField(snapshot: QuestionnaireSnapshot, state: ViewState) {
      const question = snapshot.context.questions[snapshot.context.index]
      const custom = draftOf(snapshot.context, question?.id ?? '').custom ?? ''
      return state.field.text === custom && !state.field.multiline
        ? state.field
        : fieldOf(custom, false)
    }

    /** The custom answer follows the field as it is typed; a plan's feedback waits for Enter. */
    function typeInto(row: ViewRow | undefined, state: ViewState) {
      if (row?.kind !== 'custom') return
      const snapshot = actor.getSnapshot()
      const question = snapshot.context.questions[snapshot.context.index]
      if ((draftOf(snapshot.context, question?.id ?? '').custom ?? '') === state.field.text) return
      actor.send({ type: 'custom.typed', text: state.field.text })
    }

    function handleKey(before: QuestionnaireSnapshot, state: ViewState, key: Keypress): ViewState {
      const mode = modeOf(before)
      const rows = rowsOf(before.context, mode, state)
      const focus = Math.min(state.focus, rows.length - 1)
      const row = rows[focus]
      const inText = isTextRow(row) && state.editing
      const last = before.context.questions.length - 1
      const where: KeyFocus =
        state.confirming === true
          ? 'confirm'
          : state.reviewing
            ? 'review'
            : inText
              ? 'text'
              : 'list'
      const intent = intentOf(where, key)
      let next: ViewState = { ...state, focus }
      delete next.notice
      const send = (event: QuestionnaireEvent) => actor.send(event)

      // After an action that finishes the last question: a one-question batch goes at once;
      // a longer one opens the review, if it can go.
      const reviewIfDone = (indexBefore: number) => {
        const after = actor.getSnapshot()
        if (after.status !== 'active' || modeOf(after) !== 'answering') return
        if (indexBefore !== last || after.context.index !== last) return
        if (!after.can({ type: 'batch.submitted' })) {
          next.notice = `To submit, answer or skip: ${unsettledHeaders(after.context)}`
        } else if (after.context.questions.length === 1) send({ type: 'batch.submitted' })
        else next = { ...next, reviewing: true, focus: 0, editing: false }
      }
      const confirmQuestion = () => {
        const index = before.context.index
        if (index === last) reviewIfDone(index)
        else send({ type: 'question.next' })
      }
      const moveFocus = (target: number) => {
        next.focus = target
        const entering = isTextRow(rows[target]) && (target !== focus || !state.editing)
        next.editing = isTextRow(rows[target])
        if (entering && rows[target]?.kind === 'custom') next.field = syncedField(before, next)
      }
      const act = (target: ViewRow) => {
        const index = before.context.index
        switch (target.kind) {
          case 'option': {
            const question = before.context.questions[index]
            if (question?.multiSelect === true) {
              if (key.name === 'return' || key.name === 'enter') {
                const draft = draftOf(before.context, question.id)
                if (draft.selected.length === 0 && draft.custom === undefined) {
                  next.notice = 'Choose at least one with space, or press tab to skip'
                } else confirmQuestion()
              } else send({ type: 'option.toggled', label: target.option.label })
            } else {
              send({ type: 'option.chosen', label: target.option.label })
              reviewIfDone(index)
            }
            return
          }
          case 'custom':
            if (state.field.text.trim() === '') next.notice = 'Type an answer, or press tab to skip'
            else confirmQuestion()
            return
          case 'approve':
            send({ type: 'plan.approved' })
            return
          case 'refuse': {
            // Notes, when typed, go with the other option (they replace it as the answer).
            const feedback = state.field.text
            const refusal =
              feedback.trim() === ''
                ? { type: 'plan.refused' as const }
                : { type: 'plan.refused' as const, feedback }
            if (before.can(refusal)) send(refusal)
            else next.notice = 'Type what should change, or pick another choice'
            return
          }
          case 'discuss':
            send({ type: 'plan.discussed' })
            return
          case 'submit':
            send({ type: 'batch.submitted' })
            return
          case 'keep-editing':
            next = openingView(before)
            return
        }
      }

      switch (intent) {
        case 'batch.dismiss':
        case 'batch.interrupt':
          if (hasWork(before.context, state)) next.confirming = true
          else send({ type: 'batch.cancelled' })
          break
        case 'confirm.yes':
          send({ type: 'batch.cancelled' })
          break
        case 'confirm.no':
          next.confirming = false
          break
        case 'review.open':
          if (mode !== 'answering') break
          if (!before.can({ type: 'batch.submitted' })) {
            next.notice = `To submit, answer or skip: ${unsettledHeaders(before.context)}`
          } else if (before.context.questions.length === 1) send({ type: 'batch.submitted' })
          else next = { ...next, reviewing: true, focus: 0, editing: false }
          break
        case 'question.back':
          if (state.reviewing) next = openingView(before)
          else send({ type: 'question.back' })
          break
        case 'question.forward': {
          const index = before.context.index
          const question = before.context.questions[index]
          const draft = draftOf(before.context, question?.id ?? '')
          const answered = isQuestionAnswered(before.context, question?.id ?? '') && !draft.skipped
          // A plan is one decision: approve, send it back, or discuss; there is nothing to skip to.
          if (mode === 'planReview') break
          else if (answered && index < last) send({ type: 'question.next' })
          else if (answered) reviewIfDone(index)
          else {
            send({ type: 'question.skipped' })
            reviewIfDone(index)
          }
          break
        }
        case 'question.next': {
          const index = before.context.index
          send({ type: 'question.next' })
          if (mode === 'answering' && index === last) reviewIfDone(index)
          break
        }
        case 'focus.up':
        case 'focus.down': {
          if (state.reviewing) {
            next.focus = intent === 'focus.up' ? 0 : 1
            break
          }
          const step = intent === 'focus.up' ? -1 : 1
          moveFocus(Math.min(Math.max(0, focus + step), rows.length - 1))
          break
        }
        case 'pick': {
          const target = Number(key.name) - 1
          const targetRow = rows[target]
          if (targetRow === undefined) break
          moveFocus(target)
          if (!isTextRow(targetRow)) act(targetRow)
          break
        }
        case 'toggle':
          if (
            row?.kind === 'option' &&
            before.context.questions[before.context.index]?.multiSelect === true
          ) {
            send({ type: 'option.toggled', label: row.option.label })
          }
          break
        case 'activate':
          if (row === undefined) break
          if (isTextRow(row) && !state.editing) moveFocus(focus)
          else act(row)
          break
        case 'plan.up':
        case 'plan.down': {
          if (mode !== 'planReview') break
          // From where the plan really is on screen: an offset past the end was clamped there.
          const page = Math.max(3, options.size().rows - 16)
          const offset = planStart + (intent === 'plan.up' ? -page : page)
          next.planOffset = Math.max(0, offset)
          break
        }
        case 'field.leave':
          next.editing = false
          break
        case 'insert':
          next.field = insertText(state.field, printableOf(key) ?? '')
          typeInto(row, next)
          break
        case 'cursor.left':
        case 'cursor.right':
        case 'cursor.home':
        case 'cursor.end':
        case 'delete.back':
        case 'delete.forward':
        case 'delete.word':
        case 'delete.toStart':
        case 'delete.toEnd':
          next.field = editField(state.field, intent)
          typeInto(row, next)
          break
        default:
          break
      }

      const after = actor.getSnapshot()
      if (
        after.status === 'active' &&
        (after.context.index !== before.context.index || modeOf(after) !== mode)
      ) {
        // A new question (or screen) opens with its own highlight and text.
        const notice = next.notice
        next = openingView(after)
        if (notice !== undefined) next.notice = notice
      }
      return next
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
