/** What the console's screens share: their types, element ids, and small helpers. */
import type { SnapshotFrom } from 'xstate'
import type { QuestionnaireEvent, questionnaireMachine } from '../../../machines/index.js'
import { h } from './dom.js'

/** A snapshot of the questionnaire that drives one ask on the page. */
export type QuestionnaireSnapshot = SnapshotFrom<typeof questionnaireMachine>

/** What the view needs from the page: where to send the user's events. */
export interface AskViewContext {
  /** The asking agent's id, shown as the session. */
  sessionId: string | undefined
  send(event: QuestionnaireEvent): void
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
