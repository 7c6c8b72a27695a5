/** The stage's screens that are not an ask: empty (maybe after a Sent ✓), sending, ended. */
import type { ConsoleConnectionEnd } from '../../../machines/index.js'
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
export function emptyStage(sent: SentNotice | undefined, offline = false): HTMLElement {
  return h('div', { className: 'empty' }, [
    sent === undefined
      ? waitingMark()
      : h('div', { className: 'sent', attrs: { 'data-sent': sent.kind } }, [
          h('span', { className: 'sent-mark', text: 'Sent ✓' }),
          h('span', { className: 'sent-text' }, [
            `${SENT_TEXT[sent.kind]} “`,
            clamp(sent.summary, 160),
            '”.',
          ]),
        ]),
    offline
      ? h('h2', { text: 'Waiting for the console to come back' })
      : h('h2', { text: 'Nothing to answer right now' }),
    h('p', {
      text: offline
        ? 'Questions still waiting there show up here as soon as it is back.'
        : 'When your agent stops to ask something, the question appears here.',
    }),
  ])
}

const SVG = 'http://www.w3.org/2000/svg'

function svg(tag: string, attrs: Record<string, string>, children: Element[] = []): Element {
  const element = document.createElementNS(SVG, tag)
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value)
  element.append(...children)
  return element
}

/** The empty stage's mark: a speech bubble with three dots, the agent's question still to come. */
function waitingMark(): HTMLElement {
  const dot = (cx: string) => svg('circle', { cx, cy: '21', r: '2.4', fill: 'currentColor' })
  return h('div', { className: 'empty-mark', attrs: { 'aria-hidden': 'true' } }, [
    svg('svg', { viewBox: '0 0 44 44', width: '44', height: '44', focusable: 'false' }, [
      svg('path', {
        d: 'M9 8h26a5 5 0 0 1 5 5v16a5 5 0 0 1-5 5H20l-8 6v-6H9a5 5 0 0 1-5-5V13a5 5 0 0 1 5-5z',
        fill: 'none',
        stroke: 'currentColor',
        'stroke-width': '2.5',
        'stroke-linejoin': 'round',
      }),
      dot('14'),
      dot('22'),
      dot('30'),
    ]),
  ])
}

/** The answer is on its way; the host has not confirmed it yet (or cannot be reached just now). */
export function sendingStage(offline = false): HTMLElement {
  return h('div', { className: 'empty' }, [
    h('div', { className: 'spinner', attrs: { 'aria-hidden': 'true' } }),
    h('h2', { text: offline ? 'Your answer is ready' : 'Sending your answer…' }),
    offline && h('p', { text: 'It goes out as soon as the console is back.' }),
  ])
}

/** The line over the page while the console cannot be reached: what it shows stays. */
export function offlineNotice(restarting: boolean): HTMLElement {
  return h('p', { className: 'offline-text' }, [
    h('strong', { text: restarting ? 'The console is restarting.' : 'Connection lost.' }),
    ' ',
    restarting
      ? 'Nothing you see here has ended: this tab reconnects when the console is back on the same address, and answers you give meanwhile go out then.'
      : 'Reconnecting… Your questions stay here, and answers you give meanwhile go out once the console is back.',
  ])
}

/** The host is gone for good (it closed the session, or a console did not come back): the page stops here. */
export function endedStage(unconfirmed: number, reason: ConsoleConnectionEnd): HTMLElement {
  return h('div', { className: 'empty ended', attrs: { 'data-state': 'ended' } }, [
    h('div', { className: 'ended-mark', attrs: { 'aria-hidden': 'true' } }),
    h('h2', {
      text:
        reason === 'host-closed' ? "The agent's session ended" : 'The console did not come back',
    }),
    h('p', {
      text:
        reason === 'host-closed'
          ? 'The host closed this console. Nothing more will arrive here.'
          : 'This tab stopped trying to reach it. Questions not answered may still be waiting: reload the page once the console runs again.',
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
