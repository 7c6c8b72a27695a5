import type { Actor, SnapshotFrom } from 'xstate'
import { draftOf, isQuestionAnswered } from '../../machines/index.js'
import type {
  QuestionnaireContext,
  QuestionnaireEvent,
  QuestionnaireOutput,
  questionnaireMachine,
} from '../../machines/index.js'
import type { TerminalStyle } from './style.js'
import { sanitize } from './text.js'
import { isTextRow, renderView, rowsOf } from './view.js'
import type { ViewModel, ViewRow, ViewState } from './view.js'
import { inquirer } from './inquirer.js'

const { createPrompt, useEffect, useKeypress, useState } = inquirer

type QuestionnaireActor = Actor<typeof questionnaireMachine>
type QuestionnaireSnapshot = SnapshotFrom<typeof questionnaireMachine>

/** What the questionnaire prompt is given: the flow's actor and how to draw. */
export interface QuestionnairePromptConfig {
  /** A started `questionnaireMachine` actor; the prompt sends it the user's actions. */
  actor: QuestionnaireActor
  style: TerminalStyle
  /** The terminal's size now. */
  size: () => { columns: number; rows: number }
  /**
   * The batch's take-down signal. The prompt library clears the screen a few
   * microtasks after an abort, by which time the asker may already be printing;
   * the prompt blanks itself synchronously on abort instead.
   */
  signal: AbortSignal
  /** Whether the input stream has ended (then closing is not the user's doing). */
  inputEnded: () => boolean
  /** Calls `listener` when the terminal is resized; returns the unsubscriber. */
  watchResize: (listener: () => void) => () => void
}

/** The subset of a Node keypress the prompt reads. */
interface Keypress {
  name?: string
  ctrl?: boolean
  shift?: boolean
  meta?: boolean
  sequence?: string
}

/** The part of a readline interface the prompt touches to own the text row. */
interface LineEditor {
  line: string
  clearLine: (direction: 0) => void
  write: (data: string) => void
}

type Mode = ViewModel['mode']

function modeOf(snapshot: QuestionnaireSnapshot): Mode {
  return snapshot.value === 'planReview' ? 'planReview' : 'answering'
}

/** The view a question opens with: the highlight on its current answer, its text in the text row. */
export function openingView(snapshot: QuestionnaireSnapshot): ViewState {
  const { context } = snapshot
  const mode = modeOf(snapshot)
  if (mode === 'planReview') return { focus: 0, text: '', reviewing: false }
  const question = context.questions[context.index]
  const draft = draftOf(context, question?.id ?? '')
  const rows = rowsOf(context, mode, { reviewing: false })
  const chosen = rows.findIndex(
    (row) => row.kind === 'option' && draft.selected.includes(row.option.label),
  )
  const focus =
    draft.custom !== undefined || chosen < 0
      ? draft.custom !== undefined
        ? rows.length - 1
        : 0
      : chosen
  return { focus, text: draft.custom ?? '', reviewing: false }
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

const DIGITS = '123456789'

/**
 * One prompt for a whole batch. It holds only view state (highlight, typed
 * text, the review overlay); every answer-shaping action is an event sent to
 * the questionnaire actor, and the screen is drawn from its snapshot. The
 * prompt resolves with the actor's output when the flow ends.
 */
export const questionnairePrompt = createPrompt<QuestionnaireOutput, QuestionnairePromptConfig>(
  (config, done) => {
    const { actor, style } = config
    const [snapshot, setSnapshot] = useState<QuestionnaireSnapshot>(actor.getSnapshot())
    const [view, setView] = useState<ViewState>(openingView(actor.getSnapshot()))
    const [, setResizes] = useState(0)
    const [takenDown, setTakenDown] = useState(config.signal.aborted)

    useEffect((readline) => {
      // Ctrl-D on an empty line makes readline close itself: treat it as dismissing the batch.
      // (When the input itself ended, the provider takes the batch down instead.)
      const onClose = () => {
        if (config.inputEnded()) return
        actor.send({ type: 'batch.cancelled' })
        const output = actor.getSnapshot().output
        if (output !== undefined) done(output)
      }
      readline.on('close', onClose)
      const onAbort = () => {
        ;(readline as unknown as LineEditor).clearLine(0)
        setTakenDown(true)
      }
      config.signal.addEventListener('abort', onAbort)
      let resizes = 0
      const subscription = actor.subscribe((next) => {
        setSnapshot(next)
        if (next.status === 'done' && next.output !== undefined) done(next.output)
      })
      const stopWatching = config.watchResize(() => setResizes(++resizes))
      return () => {
        readline.removeListener('close', onClose)
        config.signal.removeEventListener('abort', onAbort)
        subscription.unsubscribe()
        stopWatching()
      }
    }, [])

    useKeypress((event, readline) => {
      const key = event as Keypress
      const editor = readline as unknown as LineEditor
      const before = actor.getSnapshot()
      if (before.status !== 'active') return
      const mode = modeOf(before)
      const rows = rowsOf(before.context, mode, view)
      const focus = Math.min(view.focus, rows.length - 1)
      const row: ViewRow | undefined = rows[focus]
      const inText = isTextRow(row)
      const last = before.context.questions.length - 1
      let next: ViewState = { focus, text: view.text, reviewing: view.reviewing }
      const send = (questionnaireEvent: QuestionnaireEvent) => actor.send(questionnaireEvent)

      // After an action that finishes the last question, offer the review if the batch can go.
      const reviewIfDone = (indexBefore: number) => {
        const after = actor.getSnapshot()
        if (after.status !== 'active' || modeOf(after) !== 'answering') return
        if (indexBefore !== last || after.context.index !== last) return
        if (after.can({ type: 'batch.submitted' })) next = { ...next, reviewing: true, focus: 0 }
        else next.notice = `To submit, answer or skip: ${unsettledHeaders(after.context)}`
      }
      const confirmQuestion = () => {
        const index = before.context.index
        if (index === last) reviewIfDone(index)
        else send({ type: 'question.next' })
      }

      if (key.name === 'escape' || (key.ctrl === true && key.name === 'c')) {
        send({ type: 'batch.cancelled' })
      } else if (key.ctrl === true && key.name === 's') {
        if (mode === 'answering' && before.can({ type: 'batch.submitted' })) {
          next = { ...next, reviewing: true, focus: 0 }
        } else if (mode === 'answering') {
          next.notice = `To submit, answer or skip: ${unsettledHeaders(before.context)}`
        }
      } else if (next.reviewing) {
        if (key.name === 'left' || (key.name === 'tab' && key.shift === true)) {
          next = openingView(before)
        } else if (key.name === 'up' || key.name === 'down') {
          next.focus = key.name === 'up' ? 0 : 1
        } else if (key.name === 'return' || key.name === 'enter') {
          if (row?.kind === 'submit') send({ type: 'batch.submitted' })
          else next = openingView(before)
        }
      } else if (key.name === 'tab' && key.shift === true) {
        send({ type: 'question.back' })
      } else if (key.name === 'tab') {
        const index = before.context.index
        send({ type: 'question.skipped' })
        reviewIfDone(index)
      } else if (key.name === 'left') {
        send({ type: 'question.back' })
      } else if (key.name === 'right') {
        const index = before.context.index
        send({ type: 'question.next' })
        if (mode === 'answering' && index === last) reviewIfDone(index)
      } else if (key.name === 'up' || key.name === 'down') {
        const step = key.name === 'up' ? -1 : 1
        next.focus = Math.min(Math.max(0, focus + step), rows.length - 1)
      } else if (
        !inText &&
        key.name !== undefined &&
        DIGITS.includes(key.name) &&
        key.ctrl !== true
      ) {
        const target = Number(key.name) - 1
        const targetRow = rows[target]
        if (targetRow !== undefined) {
          next.focus = target
          if (!isTextRow(targetRow)) act(targetRow)
        }
      } else if (!inText && key.name === 'space') {
        if (row?.kind === 'option' && currentIsMulti(before)) {
          send({ type: 'option.toggled', label: row.option.label })
        }
      } else if (key.name === 'return' || key.name === 'enter') {
        if (row !== undefined) act(row)
      } else if (inText) {
        // Readline already applied the key to its line; mirror it, keeping tabs out of answers.
        const typed = editor.line.replace(/\t/g, '')
        next.text = typed
        if (row?.kind === 'custom' && typed !== view.text) {
          send({ type: 'custom.typed', text: typed.trim() })
        }
      }

      function act(target: ViewRow): void {
        switch (target.kind) {
          case 'option': {
            const index = before.context.index
            if (currentIsMulti(before)) {
              if (key.name === 'return' || key.name === 'enter') {
                const draft = draftOf(before.context, before.context.questions[index]?.id ?? '')
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
            if (next.text.trim() === '') next.notice = 'Type an answer, or press tab to skip'
            else confirmQuestion()
            return
          case 'approve':
            send({ type: 'plan.approved' })
            return
          case 'refuse':
            send({ type: 'plan.refused' })
            return
          case 'feedback':
            if (next.text.trim() === '')
              next.notice = 'Type what should change, or pick another choice'
            else send({ type: 'plan.refused', feedback: next.text.trim() })
            return
          case 'discuss':
            send({ type: 'plan.discussed' })
            return
          default:
            return
        }
      }

      const after = actor.getSnapshot()
      if (after.status === 'active') {
        // A new question (or screen) opens with its own highlight and text.
        if (after.context.index !== before.context.index || modeOf(after) !== mode) {
          next = {
            ...openingView(after),
            ...(next.notice === undefined ? {} : { notice: next.notice }),
          }
        }
        const focusedRow = rowsOf(after.context, modeOf(after), next)[next.focus]
        if (focusedRow?.kind === 'custom' && !inText) {
          // Entering the text row shows what the flow holds, not what was typed before a choice.
          const question = after.context.questions[after.context.index]
          next.text = draftOf(after.context, question?.id ?? '').custom ?? ''
        }
        const wanted = isTextRow(focusedRow) ? next.text : ''
        if (editor.line !== wanted) {
          editor.clearLine(0)
          if (wanted !== '') editor.write(wanted)
        }
      }
      setView(next)
      setSnapshot(after)
    })

    if (takenDown) return ''
    const current = actor.getSnapshot().status === 'active' ? actor.getSnapshot() : snapshot
    const size = config.size()
    const frame = renderView({
      context: current.context,
      mode: modeOf(current),
      view,
      style,
      columns: size.columns,
      rows: size.rows,
    })
    if (frame.cursorLine === undefined) return `${frame.lines.join('\n')}\u001b[?25l`
    const content = frame.lines.slice(0, frame.cursorLine + 1).join('\n')
    const rest = frame.lines.slice(frame.cursorLine + 1).join('\n')
    return [`\u001b[?25h${content}`, rest]
  },
)

function currentIsMulti(snapshot: QuestionnaireSnapshot): boolean {
  return snapshot.context.questions[snapshot.context.index]?.multiSelect === true
}
