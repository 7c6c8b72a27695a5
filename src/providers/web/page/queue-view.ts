/** The queue of waiting asks down the side of the console page. */
import type { Actor } from 'xstate'
import type { consoleAskMachine, questionnaireMachine } from '../../../machines/index.js'
import type { AskUserQuestionItem } from '../../../vocabulary/index.js'
import type { Approvals } from './wire.js'
import { h } from './dom.js'
import { clamp } from './stage-views.js'
import { deadlineBadge } from './view-kit.js'

/** One ask the page shows, and the questionnaire the user answers it with. */
export interface Ask {
  rpcId: string
  sessionId: string | undefined
  questions: AskUserQuestionItem[]
  /** When the ask times out (epoch ms), if the host said; and when this page first saw it. */
  deadline: { at: number; since: number } | undefined
  actor: Actor<typeof questionnaireMachine>
  /** Where the ask is on the page: listed, carried aside, awaiting its receipt, or gone. */
  life: Actor<typeof consoleAskMachine>
  /** On an ask that needs several approvals: how many, and the ids of who gave them, as last sent. */
  approvals: Approvals | undefined
}

/** The user's answer to `ask` is out, and the host has not confirmed it. */
export function isSending(ask: Pick<Ask, 'life'>): boolean {
  return ask.life.getSnapshot().context.sent !== undefined
}

/** How an ask is named in the queue, a toast or a notification. */
export function summary(ask: Pick<Ask, 'questions' | 'rpcId'>): string {
  const [first] = ask.questions
  return first?.header ?? first?.question ?? ask.rpcId
}

/** The queue's items, one button per ask; `onSelect` shows the one clicked. */
export function queueItems(
  asks: Iterable<Ask>,
  selected: string | undefined,
  onSelect: (rpcId: string) => void,
): HTMLElement[] {
  return [...asks].map((ask) => {
    const snapshot = ask.actor.getSnapshot()
    const total = ask.questions.length
    const [first] = ask.questions
    // Clamped here as well as in CSS: a question of any length must not make the item huge.
    const title = clamp(summary(ask), 200)
    return h('li', {}, [
      h(
        'button',
        {
          className: 'queue-item',
          attrs: {
            type: 'button',
            'aria-current': ask.rpcId === selected ? 'true' : undefined,
            // No aria-label: the name is the text on the card (WCAG 2.5.3, label in name).
          },
          on: { click: () => onSelect(ask.rpcId) },
        },
        [
          h('span', { className: 'queue-item-title', text: title }),
          first !== undefined &&
            first.header !== undefined &&
            h('span', { className: 'queue-item-text', text: clamp(first.question, 300) }),
          h('span', { className: 'queue-item-meta' }, [
            snapshot.value === 'planReview'
              ? 'Plan to review'
              : `${total} question${total === 1 ? '' : 's'}`,
            ask.approvals !== undefined &&
              ` · ${ask.approvals.given.length} of ${ask.approvals.required} approvals`,
            ask.sessionId !== undefined && ` · ${ask.sessionId}`,
            isSending(ask) && ' · sending…',
          ]),
          ask.deadline !== undefined && deadlineBadge(ask.deadline),
        ],
      ),
    ])
  })
}
