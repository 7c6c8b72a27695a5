/** What the console's screens share: their types, element ids, and small helpers. */
import type { SnapshotFrom } from 'xstate'
import type { QuestionnaireEvent, questionnaireMachine } from '../../../machines/index.js'
import { remainingTime } from './deadline.js'
import { h } from './dom.js'

/** A snapshot of the questionnaire that drives one ask on the page. */
export type QuestionnaireSnapshot = SnapshotFrom<typeof questionnaireMachine>

/** What the view needs from the page: where to send the user's events. */
export interface AskViewContext {
  /** The asking agent's id, shown as the session. */
  sessionId: string | undefined
  /** When the ask times out (epoch ms), and when the page first saw it; absent without a deadline. */
  deadline: { at: number; since: number } | undefined
  /**
   * On an ask that needs several approvals: how many, who gave them, and
   * whether the signed-in person is among them. Read again on every update:
   * the count changes while the card is shown.
   */
  approvals(): ApprovalsView | undefined
  send(event: QuestionnaireEvent): void
}

/** An ask's approvals as the page shows them (ids as the host sent them). */
export interface ApprovalsView {
  required: number
  given: readonly string[]
  /** The signed-in person approved already: their Approve is spent. */
  mine: boolean
}

/** "1 of 2 approvals", and who gave them. */
export function approvalsText({ required, given }: ApprovalsView): string {
  const count = `${given.length} of ${required} approval${required === 1 ? '' : 's'}`
  return given.length === 0 ? count : `${count} · approved by ${given.join(', ')}`
}

/** One rendered screen of an ask; rebuilt when {@link viewKey} changes, patched otherwise. */
export interface AskView {
  readonly key: string
  readonly root: HTMLElement
  update(snapshot: QuestionnaireSnapshot): void
  /** Moves focus to where the keyboard should start on this screen. */
  focus(): void
}

let ids = 0
/** A page-unique element id. */
export const nextId = (prefix: string) => `${prefix}-${++ids}`

/** Which screen a snapshot shows: a new key means a new screen. */
export function viewKey(snapshot: QuestionnaireSnapshot): string {
  return snapshot.value === 'answering'
    ? `answering:${snapshot.context.index}`
    : String(snapshot.value)
}

/** Whether a key press is part of an IME composition (and must not submit anything). */
export function isComposing(event: KeyboardEvent): boolean {
  return event.isComposing || event.keyCode === 229
}

/** The asking agent's id, shown on the card, or nothing for an ask without an agent. */
export function sessionBadge(sessionId: string | undefined): HTMLElement | false {
  return (
    sessionId !== undefined && h('span', { className: 'session', text: `Session ${sessionId}` })
  )
}

/** A button that sends one questionnaire event when clicked. */
export function eventButton(
  send: AskViewContext['send'],
  event: QuestionnaireEvent,
  label: string,
  className = 'button',
  title?: string,
): HTMLButtonElement {
  return h('button', {
    className,
    text: label,
    attrs: title === undefined ? { type: 'button' } : { type: 'button', title },
    on: { click: () => send(event) },
  }) as HTMLButtonElement
}

/** The countdown of an ask with a deadline; {@link refreshDeadlines} keeps it current. */
export function deadlineBadge(deadline: AskViewContext['deadline']): HTMLElement | false {
  if (deadline === undefined) return false
  const badge = h('span', {
    className: 'deadline',
    attrs: { role: 'timer', 'data-deadline': deadline.at, 'data-since': deadline.since },
  })
  refreshDeadline(badge, Date.now())
  return badge
}

function refreshDeadline(badge: HTMLElement, now: number): void {
  const left = remainingTime(Number(badge.dataset.deadline), Number(badge.dataset.since), now)
  if (badge.textContent !== left.text) badge.textContent = left.text
  badge.dataset.warning = String(left.warning)
}

/** Updates every countdown on the page. */
export function refreshDeadlines(now = Date.now()): void {
  for (const badge of document.querySelectorAll<HTMLElement>('[data-deadline]')) {
    refreshDeadline(badge, now)
  }
}

/** "question 2", "questions 2 and 3", "questions 1, 2 and 4" — positions counted from 1. */
export function questionList(positions: readonly number[]): string {
  const names = positions.map((position) => String(position + 1))
  if (names.length <= 1) return `question ${names.join('')}`
  return `questions ${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`
}

/** Whether an option label carries the model's recommendation, which the page shows as a badge. */
export const RECOMMENDED = /\s*\(recommended\)\s*$/i
