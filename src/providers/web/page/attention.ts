/**
 * The console in a background tab (DESIGN §13): the number of waiting asks in
 * the page title, and, once the user allowed it from the header, a browser
 * notification for each ask that arrives while the page is hidden or not
 * focused. An ask is announced at most once per tab, however often the host
 * offers it again (a reconnect replays every pending ask), and never when it
 * arrived while the user was looking.
 */
import { h, replaceChildren } from './dom.js'

const TITLE = 'askseam console'
/** Enough to cover any console's queue; the oldest are forgotten first. */
const SEEN_LIMIT = 1000

/** The page title for `waiting` asks: `(3) askseam console`, or the plain title for none. */
export function titleFor(waiting: number): string {
  return waiting === 0 ? TITLE : `(${waiting}) ${TITLE}`
}

/** What the page tells {@link createAttention}, and what it gets back. */
export interface Attention {
  /** The header's opt-in to notifications (or what the browser decided). */
  readonly control: HTMLElement
  /** The number of asks waiting changed. */
  setWaiting(count: number): void
  /** An ask arrived that the page did not show before; announced if the page is out of sight. */
  arrived(ask: { rpcId: string; summary: string; sessionId: string | undefined }): void
}

const supported = () => typeof Notification === 'function'

/** Whether the user is not looking at this page: another tab, another window, minimised. */
const outOfSight = () => document.visibilityState === 'hidden' || !document.hasFocus()

/** Creates the title and notification part of the page; `onOpen` shows an ask the user clicked. */
export function createAttention(options: { onOpen(rpcId: string): void }): Attention {
  /** Every ask this tab saw arrive, announced or not. */
  const seen = new Set<string>()
  const control = h('span', { className: 'notify' })

  function renderControl(): void {
    if (!supported()) {
      replaceChildren(control, [])
      return
    }
    switch (Notification.permission) {
      case 'granted':
        replaceChildren(control, [
          h('span', { className: 'notify-state', text: 'Notifications on' }),
        ])
        return
      case 'denied':
        replaceChildren(control, [
          h('span', {
            className: 'notify-state',
            text: 'Notifications blocked',
            attrs: {
              title:
                'The browser blocks notifications for this page; its site settings can allow them',
            },
          }),
        ])
        return
      default:
        replaceChildren(control, [
          h('button', {
            className: 'button ghost notify-button',
            text: 'Notify me',
            attrs: {
              type: 'button',
              title:
                'Get a browser notification when a question arrives while this tab is in the background',
            },
            on: {
              click: () => {
                void Notification.requestPermission().then(renderControl, renderControl)
              },
            },
          }),
        ])
    }
  }

  function announce(ask: { rpcId: string; summary: string; sessionId: string | undefined }): void {
    if (!supported() || Notification.permission !== 'granted' || !outOfSight()) return
    try {
      const notification = new Notification('A question is waiting in askseam', {
        body: ask.sessionId === undefined ? ask.summary : `${ask.summary} · ${ask.sessionId}`,
        // One notification per ask, even if the browser is asked twice.
        tag: `askseam:${ask.rpcId}`,
      })
      notification.addEventListener('click', () => {
        window.focus()
        options.onOpen(ask.rpcId)
        notification.close()
      })
    } catch {
      // Some browsers allow notifications only from a service worker: the title still counts.
    }
  }

  renderControl()
  return {
    control,
    setWaiting(count) {
      const title = titleFor(count)
      if (document.title !== title) document.title = title
    },
    arrived(ask) {
      if (seen.has(ask.rpcId)) return
      seen.add(ask.rpcId)
      if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value as string)
      announce(ask)
    },
  }
}
