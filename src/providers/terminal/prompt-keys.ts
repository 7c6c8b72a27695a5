/**
 * What the prompt does with a key: the key map names the intent (keymap.ts),
 * and here each intent has its named handler, each row kind its action on
 * Enter. A handler sends the questionnaire actor the user's actions and
 * shapes the next view state; nothing here draws.
 */
import { draftOf, isQuestionAnswered } from '../../machines/index.js'
import type { QuestionnaireContext, QuestionnaireEvent } from '../../machines/index.js'
import { editField, insertText } from './field.js'
import type { KeyFocus, KeyIntent, Keypress } from './keymap.js'
import { intentOf, printableOf } from './keymap.js'
import { sanitize } from './text.js'
import { modeOf, openingView, syncedField, typeInto } from './prompt-view.js'
import type { QuestionnaireActor, QuestionnaireSnapshot } from './prompt-view.js'
import { isTextRow, rowsOf } from './view-model.js'
import type { ViewModel, ViewRow, ViewState } from './view-model.js'

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

/** What the prompt lends the key handlers besides the key. */
export interface KeyContext {
  actor: QuestionnaireActor
  /** The terminal's size now (a plan pages by its height). */
  size: () => { rows: number }
  /** The first plan line on screen in the last frame drawn. */
  planStart: number
}

/** One key's turn: what it found, and the view state it is shaping (`next`). */
interface KeyTurn extends KeyContext {
  readonly before: QuestionnaireSnapshot
  readonly state: ViewState
  readonly key: Keypress
  readonly intent: KeyIntent
  readonly mode: ViewModel['mode']
  readonly rows: readonly ViewRow[]
  readonly focus: number
  readonly row: ViewRow | undefined
  /** The index of the batch's last question. */
  readonly last: number
  next: ViewState
}

const send = (turn: KeyTurn, event: QuestionnaireEvent) => turn.actor.send(event)

/** Submits a one-question batch; opens the review of a longer one; or says what is still open. */
function submitOrReview(turn: KeyTurn, snapshot: QuestionnaireSnapshot) {
  if (!snapshot.can({ type: 'batch.submitted' })) {
    turn.next.notice = `To submit, answer or skip: ${unsettledHeaders(snapshot.context)}`
  } else if (snapshot.context.questions.length === 1) send(turn, { type: 'batch.submitted' })
  else turn.next = { ...turn.next, reviewing: true, focus: 0, editing: false }
}

/**
 * After an action that finishes the last question: a one-question batch goes
 * at once; a longer one opens the review, if it can go.
 */
function reviewIfDone(turn: KeyTurn, indexBefore: number) {
  const after = turn.actor.getSnapshot()
  if (after.status !== 'active' || modeOf(after) !== 'answering') return
  if (indexBefore !== turn.last || after.context.index !== turn.last) return
  submitOrReview(turn, after)
}

function confirmQuestion(turn: KeyTurn) {
  const index = turn.before.context.index
  if (index === turn.last) reviewIfDone(turn, index)
  else send(turn, { type: 'question.next' })
}

function moveFocus(turn: KeyTurn, target: number) {
  const { next, rows, focus, state, before } = turn
  next.focus = target
  const entering = isTextRow(rows[target]) && (target !== focus || !state.editing)
  next.editing = isTextRow(rows[target])
  if (entering && rows[target]?.kind === 'custom') next.field = syncedField(before, next)
}

type RowAction<TKind extends ViewRow['kind']> = (
  turn: KeyTurn,
  row: Extract<ViewRow, { kind: TKind }>,
) => void

/** What Enter (or a digit) does on each kind of row. */
const rowActions: { [TKind in ViewRow['kind']]: RowAction<TKind> } = {
  option(turn, row) {
    const { before, key } = turn
    const index = before.context.index
    const question = before.context.questions[index]
    if (question?.multiSelect !== true) {
      send(turn, { type: 'option.chosen', label: row.option.label })
      reviewIfDone(turn, index)
    } else if (key.name === 'return' || key.name === 'enter') {
      const draft = draftOf(before.context, question.id)
      if (draft.selected.length === 0 && draft.custom === undefined) {
        turn.next.notice = 'Choose at least one with space, or press tab to skip'
      } else confirmQuestion(turn)
    } else send(turn, { type: 'option.toggled', label: row.option.label })
  },
  custom(turn) {
    if (turn.state.field.text.trim() === '') {
      turn.next.notice = 'Type an answer, or press tab to skip'
    } else confirmQuestion(turn)
  },
  approve(turn) {
    send(turn, { type: 'plan.approved' })
  },
  refuse(turn) {
    // Notes, when typed, go with the other option (they replace it as the answer).
    const feedback = turn.state.field.text
    const refusal =
      feedback.trim() === ''
        ? { type: 'plan.refused' as const }
        : { type: 'plan.refused' as const, feedback }
    if (turn.before.can(refusal)) send(turn, refusal)
    else turn.next.notice = 'Type what should change, or pick another choice'
  },
  discuss(turn) {
    send(turn, { type: 'plan.discussed' })
  },
  submit(turn) {
    send(turn, { type: 'batch.submitted' })
  },
  'keep-editing'(turn) {
    turn.next = openingView(turn.before)
  },
}

function act(turn: KeyTurn, row: ViewRow) {
  // The table pairs each kind with its own row type; TypeScript cannot follow that through the lookup.
  ;(rowActions[row.kind] as RowAction<ViewRow['kind']>)(turn, row)
}

const dismiss = (turn: KeyTurn) => {
  if (hasWork(turn.before.context, turn.state)) turn.next.confirming = true
  else send(turn, { type: 'batch.cancelled' })
}

const moveFocusBy = (turn: KeyTurn) => {
  if (turn.state.reviewing) {
    turn.next.focus = turn.intent === 'focus.up' ? 0 : 1
    return
  }
  const step = turn.intent === 'focus.up' ? -1 : 1
  moveFocus(turn, Math.min(Math.max(0, turn.focus + step), turn.rows.length - 1))
}

const scrollPlan = (turn: KeyTurn) => {
  if (turn.mode !== 'planReview') return
  // From where the plan really is on screen: an offset past the end was clamped there.
  const page = Math.max(3, turn.size().rows - 16)
  const offset = turn.planStart + (turn.intent === 'plan.up' ? -page : page)
  turn.next.planOffset = Math.max(0, offset)
}

const edit = (turn: KeyTurn) => {
  turn.next.field = editField(turn.state.field, turn.intent)
  typeInto(turn.actor, turn.row, turn.next)
}

const nothing = () => {}

/** Each intent's handler (the key map decides which intent a key is). */
const intentHandlers: Readonly<Record<KeyIntent, (turn: KeyTurn) => void>> = {
  'batch.dismiss': dismiss,
  'batch.interrupt': dismiss,
  'confirm.yes': (turn) => send(turn, { type: 'batch.cancelled' }),
  'confirm.no': (turn) => {
    turn.next.confirming = false
  },
  'review.open': (turn) => {
    if (turn.mode === 'answering') submitOrReview(turn, turn.before)
  },
  'question.back': (turn) => {
    if (turn.state.reviewing) turn.next = openingView(turn.before)
    else send(turn, { type: 'question.back' })
  },
  'question.forward': (turn) => {
    const { before, last } = turn
    const index = before.context.index
    const question = before.context.questions[index]
    const draft = draftOf(before.context, question?.id ?? '')
    const answered = isQuestionAnswered(before.context, question?.id ?? '') && !draft.skipped
    // A plan is one decision: approve, send it back, or discuss; there is nothing to skip to.
    if (turn.mode === 'planReview') return
    else if (answered && index < last) send(turn, { type: 'question.next' })
    else if (answered) reviewIfDone(turn, index)
    else {
      send(turn, { type: 'question.skipped' })
      reviewIfDone(turn, index)
    }
  },
  'question.next': (turn) => {
    const index = turn.before.context.index
    send(turn, { type: 'question.next' })
    if (turn.mode === 'answering' && index === turn.last) reviewIfDone(turn, index)
  },
  'focus.up': moveFocusBy,
  'focus.down': moveFocusBy,
  pick: (turn) => {
    const target = Number(turn.key.name) - 1
    const targetRow = turn.rows[target]
    if (targetRow === undefined) return
    moveFocus(turn, target)
    if (!isTextRow(targetRow)) act(turn, targetRow)
  },
  toggle: (turn) => {
    const { row, before } = turn
    if (
      row?.kind === 'option' &&
      before.context.questions[before.context.index]?.multiSelect === true
    ) {
      send(turn, { type: 'option.toggled', label: row.option.label })
    }
  },
  activate: (turn) => {
    const { row } = turn
    if (row === undefined) return
    if (isTextRow(row) && !turn.state.editing) moveFocus(turn, turn.focus)
    else act(turn, row)
  },
  'plan.up': scrollPlan,
  'plan.down': scrollPlan,
  'field.leave': (turn) => {
    turn.next.editing = false
  },
  insert: (turn) => {
    turn.next.field = insertText(turn.state.field, printableOf(turn.key) ?? '')
    typeInto(turn.actor, turn.row, turn.next)
  },
  'cursor.left': edit,
  'cursor.right': edit,
  'cursor.home': edit,
  'cursor.end': edit,
  'delete.back': edit,
  'delete.forward': edit,
  'delete.word': edit,
  'delete.toStart': edit,
  'delete.toEnd': edit,
  // The prompt takes a paste before the key map is asked; a stray end of one does nothing.
  'paste.start': nothing,
  'paste.end': nothing,
}

/**
 * The view state after `key`: its intent is looked up where the keyboard is,
 * its handler acts, and a question (or screen) that changed opens with its
 * own highlight and text.
 */
export function handleKey(
  context: KeyContext,
  before: QuestionnaireSnapshot,
  state: ViewState,
  key: Keypress,
): ViewState {
  const mode = modeOf(before)
  const rows = rowsOf(before.context, mode, state)
  const focus = Math.min(state.focus, rows.length - 1)
  const row = rows[focus]
  const inText = isTextRow(row) && state.editing
  const where: KeyFocus =
    state.confirming === true ? 'confirm' : state.reviewing ? 'review' : inText ? 'text' : 'list'
  const intent = intentOf(where, key)
  let next: ViewState = { ...state, focus }
  delete next.notice
  if (intent !== undefined) {
    const turn: KeyTurn = {
      ...context,
      before,
      state,
      key,
      intent,
      mode,
      rows,
      focus,
      row,
      last: before.context.questions.length - 1,
      next,
    }
    intentHandlers[intent](turn)
    next = turn.next
  }

  const after = context.actor.getSnapshot()
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
