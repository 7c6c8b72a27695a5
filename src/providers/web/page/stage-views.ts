/** The stage's screens that are not an ask: empty (maybe after a Sent ✓), sending, ended. */
import { h } from './dom.js'

/** What the user's last finished ask did, shown as the Sent ✓ confirmation. */
export interface SentNotice {
  summary: string
  kind: 'answered' | 'dismissed' | 'discuss'
}

const SENT_TEXT: Record<SentNotice['kind'], string> = {
  answered: 'The agent has your answer to',
  dismissed: 'The agent was told you dismissed',
  discuss: 'The agent was told you want to discuss',
}

/** Nothing to answer; after an answer went through, the confirmation of it. */
export function emptyStage(sent: SentNotice | undefined): HTMLElement {
  return h('div', { className: 'empty' }, [
    sent === undefined
      ? h('div', { className: 'empty-mark', attrs: { 'aria-hidden': 'true' } })
      : h('div', { className: 'sent', attrs: { 'data-sent': sent.kind } }, [
          h('span', { className: 'sent-mark', text: 'Sent ✓' }),
          h('span', { className: 'sent-text' }, [
            `${SENT_TEXT[sent.kind]} “`,
            clamp(sent.summary, 160),
            '”.',
          ]),
        ]),
    h('h2', { text: 'Nothing to answer right now' }),
    h('p', { text: 'When your agent stops to ask something, the question appears here.' }),
  ])
}

/** The answer is on its way; the host has not confirmed it yet. */
export function sendingStage(): HTMLElement {
  return h('div', { className: 'empty' }, [
    h('div', { className: 'spinner', attrs: { 'aria-hidden': 'true' } }),
    h('h2', { text: 'Sending your answer…' }),
  ])
}

/** The host is gone for good: the page stops here. */
export function endedStage(unconfirmed: number): HTMLElement {
  return h('div', { className: 'empty ended', attrs: { 'data-state': 'ended' } }, [
    h('div', { className: 'ended-mark', attrs: { 'aria-hidden': 'true' } }),
    h('h2', { text: "The agent's session ended" }),
    h('p', {
      text: 'The host closed this console, or could not be reached again. Nothing more will arrive here.',
    }),
    unconfirmed > 0 &&
      h('p', {
        className: 'ended-warning',
        text:
          unconfirmed === 1
            ? 'One answer was not confirmed before the host went away: it may not have reached the agent.'
            : `${unconfirmed} answers were not confirmed before the host went away: they may not have reached the agent.`,
      }),
    h('button', {
      className: 'button',
      text: 'Reload the page',
      attrs: { type: 'button' },
      on: { click: () => location.reload() },
    }),
  ])
}

/** Text cut to `max` characters, with an ellipsis when cut. */
export function clamp(text: string, max: number): string {
  const chars = [...text]
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`
}
