/**
 * The view state a prompt keeps beside the questionnaire actor: what a
 * question opens with, and how typed or pasted text reaches the text field
 * and, for a custom answer, the actor.
 */
import type { Actor, SnapshotFrom } from 'xstate'
import { draftOf } from '../../machines/index.js'
import type { questionnaireMachine } from '../../machines/index.js'
import { fieldOf, insertText } from './field.js'
import { blankView, isTextRow, rowsOf } from './view-model.js'
import type { ViewModel, ViewRow, ViewState } from './view-model.js'

/** The questionnaire actor a prompt drives. */
export type QuestionnaireActor = Actor<typeof questionnaireMachine>
/** A snapshot of {@link QuestionnaireActor}. */
export type QuestionnaireSnapshot = SnapshotFrom<typeof questionnaireMachine>

/** Which screen the questionnaire's state calls for. */
export function modeOf(snapshot: QuestionnaireSnapshot): ViewModel['mode'] {
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

/** The field holding the custom answer of the question on screen (kept when it already does). */
export function syncedField(snapshot: QuestionnaireSnapshot, state: ViewState) {
  const question = snapshot.context.questions[snapshot.context.index]
  const custom = draftOf(snapshot.context, question?.id ?? '').custom ?? ''
  return state.field.text === custom && !state.field.multiline
    ? state.field
    : fieldOf(custom, false)
}

/** The custom answer follows the field as it is typed; a plan's feedback waits for Enter. */
export function typeInto(actor: QuestionnaireActor, row: ViewRow | undefined, state: ViewState) {
  if (row?.kind !== 'custom') return
  const snapshot = actor.getSnapshot()
  const question = snapshot.context.questions[snapshot.context.index]
  if ((draftOf(snapshot.context, question?.id ?? '').custom ?? '') === state.field.text) return
  actor.send({ type: 'custom.typed', text: state.field.text })
}

/** The view after a paste: the text goes into the screen's text field at the cursor. */
export function pasteInto(
  actor: QuestionnaireActor,
  before: QuestionnaireSnapshot,
  state: ViewState,
  text: string,
): ViewState {
  if (state.reviewing || state.confirming === true) return state
  const rows = rowsOf(before.context, modeOf(before), state)
  const target = isTextRow(rows[state.focus])
    ? state.focus
    : rows.findIndex((row) => isTextRow(row))
  if (target < 0) return state
  const entering = target !== state.focus || !state.editing
  const base: ViewState = { ...state, focus: target, editing: true }
  const field = entering && rows[target]?.kind === 'custom' ? syncedField(before, base) : base.field
  const next = { ...base, field: insertText(field, text) }
  typeInto(actor, rows[target], next)
  return next
}
