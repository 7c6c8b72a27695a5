/**
 * What the terminal's screen is drawn from: the view state only the terminal
 * knows (highlight, text field, overlays), the rows of the screen that is up,
 * and the frame the drawing yields.
 */
import { describePlanReview } from '../../vocabulary/index.js'
import type { QuestionnaireContext } from '../../machines/index.js'
import type { AskUserQuestionItem, AskUserQuestionOption } from '../../protocol/index.js'
import type { TextField } from './field.js'
import { fieldOf } from './field.js'
import type { StyledLine } from './markdown.js'
import type { TerminalStyle } from './style.js'

/** One selectable line of a screen. Text rows take typing; the others act on enter. */
export type ViewRow =
  | { kind: 'option'; option: AskUserQuestionOption }
  | { kind: 'custom' }
  | { kind: 'approve'; option: AskUserQuestionOption }
  /**
   * A plan's other option, by its own label, with room for what should
   * change; without another option, the way to send the plan back with notes.
   */
  | { kind: 'refuse'; option?: AskUserQuestionOption }
  | { kind: 'discuss' }
  | { kind: 'submit' }
  | { kind: 'keep-editing' }

/** Which screen the questionnaire's state and the view's own review flag call for. */
export type ViewScreen = 'question' | 'plan' | 'review'

/** What only the terminal knows: where the highlight is, what is typed, a passing notice. */
export interface ViewState {
  /** The row with the highlight. */
  focus: number
  /** The text row's content and cursor (for the question on screen, or the plan's feedback). */
  field: TextField
  /** Whether a highlighted text row has the keyboard (Esc leaves it, keeping the text). */
  editing: boolean
  /** The review-and-submit overlay is open. */
  reviewing: boolean
  /** "Dismiss these answers?" is being asked. */
  confirming?: boolean
  /** How many lines of a long plan are scrolled away (page up / page down). */
  planOffset?: number
  /** A one-line hint after a key that did nothing, cleared by the next key. */
  notice?: string
}

/** The time left to answer, as a line under the questions. */
export interface ViewClock {
  text: string
  /** The last tenth of the wait: shown as a warning. */
  urgent: boolean
}

/** What the view is drawn from: the flow's snapshot and the view state. */
export interface ViewModel {
  context: QuestionnaireContext
  /** The questionnaire state: `answering` or `planReview`. */
  mode: 'answering' | 'planReview'
  view: ViewState
  style: TerminalStyle
  columns: number
  rows: number
  /** Whether the questionnaire would take `batch.submitted` now (asked of the machine). */
  canSubmit: boolean
  /** The remaining time, when the ask has a deadline. */
  clock?: ViewClock
  /** A line above the question, e.g. "1 of 2 approvals: alice". */
  note?: string
  /** The plan, already formatted (markdown); without it the plan's text is shown as it is. */
  plan?: readonly StyledLine[]
}

/** Where the terminal cursor goes: a line of the frame and a column (cells from the left). */
export interface ViewCursor {
  line: number
  column: number
}

/** The screen lines; `cursor` is set when a text field has the keyboard. */
export interface ViewFrame {
  lines: string[]
  cursor?: ViewCursor
  /** The first plan line on screen, when a long plan is scrolled (what the offset came to). */
  planStart?: number
}

/** A view state with the highlight on `focus` and an empty one-line field. */
export function blankView(focus = 0): ViewState {
  return { focus, field: fieldOf('', false), editing: false, reviewing: false }
}

/** Which screen is up. */
export function screenOf(mode: ViewModel['mode'], view: Pick<ViewState, 'reviewing'>): ViewScreen {
  if (mode === 'planReview') return 'plan'
  return view.reviewing ? 'review' : 'question'
}

/** The rows of the screen that is up. */
export function rowsOf(
  context: QuestionnaireContext,
  mode: ViewModel['mode'],
  view: Pick<ViewState, 'reviewing'>,
): ViewRow[] {
  const screen = screenOf(mode, view)
  if (screen === 'review') return [{ kind: 'submit' }, { kind: 'keep-editing' }]
  if (screen === 'plan') {
    const review = describePlanReview(context.questions)
    if (review === undefined) return [{ kind: 'discuss' }]
    // One decision, three ways: approve, the other option (notes optional), or talk instead.
    return [
      { kind: 'approve', option: review.approve },
      review.refuse === undefined ? { kind: 'refuse' } : { kind: 'refuse', option: review.refuse },
      { kind: 'discuss' },
    ]
  }
  const question = context.questions[context.index] as AskUserQuestionItem
  const options = (question.options ?? []).map((option): ViewRow => ({ kind: 'option', option }))
  return [...options, { kind: 'custom' }]
}

/** Whether a row takes typing. */
export function isTextRow(row: ViewRow | undefined): boolean {
  return row?.kind === 'custom' || row?.kind === 'refuse'
}
