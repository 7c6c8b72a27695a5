/**
 * The console page's frame: the header (brand, notification opt-in,
 * connection status), the offline banner, the queue and the stage, and the
 * toast. What goes inside the queue and the stage is the page's to render.
 */
import type { ConnectionState } from './connection.js'
import { h, replaceChildren } from './dom.js'
import { offlineNotice } from './stage-views.js'

/** Whether the host cannot hear the page right now (what the page shows stays, marked so). */
export const isOffline = (state: ConnectionState) =>
  state === 'reconnecting' || state === 'restarting'

const STATUS_TEXT: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  online: 'Connected',
  reconnecting: 'Reconnecting…',
  restarting: 'Console restarting…',
  ended: 'Session ended',
}

/** The page's frame, built once in place of `#app`. */
export interface Shell {
  readonly queueList: HTMLElement
  readonly queueCount: HTMLElement
  readonly stage: HTMLElement
  /** Shows a short message for a few seconds. */
  showToast(text: string): void
  /** Shows the connection's state in the header and, while offline, the banner. */
  showState(state: ConnectionState): void
  /** Shows who the host says the page is signed in as (a console with users). */
  showUser(user: { id: string; name?: string }): void
}

/** Builds the page's frame; `headerControls` go in the header before the status. */
export function buildShell(headerControls: readonly HTMLElement[]): Shell {
  const status = h('span', { className: 'status', text: 'Connecting…', attrs: { role: 'status' } })
  const identity = h('span', { className: 'identity', attrs: { hidden: true } })
  const queueList = h('ul', { className: 'queue-list' })
  const queueCount = h('span', { className: 'count', text: '0' })
  const stage = h('main', { className: 'stage', attrs: { id: 'stage', tabindex: -1 } })
  const toast = h('div', { className: 'toast', attrs: { role: 'status', 'aria-live': 'polite' } })
  const banner = h('div', {
    className: 'offline',
    attrs: { role: 'status', 'aria-live': 'polite' },
  })
  let toastTimer: ReturnType<typeof setTimeout> | undefined

  document
    .getElementById('app')
    ?.replaceWith(
      h('div', { className: 'app', attrs: { id: 'app' } }, [
        h('header', { className: 'topbar' }, [
          h('h1', { className: 'brand' }, [
            h('span', { className: 'brand-mark', attrs: { 'aria-hidden': 'true' } }),
            'askseam',
            h('span', { className: 'brand-sub', text: ' console' }),
          ]),
          h('span', { className: 'spacer' }),
          ...headerControls,
          identity,
          status,
        ]),
        banner,
        h('div', { className: 'layout' }, [
          h('aside', { className: 'queue', attrs: { 'aria-label': 'Pending questions' } }, [
            h('h2', { className: 'queue-title' }, ['Waiting for you ', queueCount]),
            queueList,
          ]),
          stage,
        ]),
        toast,
      ]),
    )

  return {
    queueList,
    queueCount,
    stage,
    showToast(text) {
      toast.textContent = text
      toast.classList.add('visible')
      if (toastTimer !== undefined) clearTimeout(toastTimer)
      toastTimer = setTimeout(() => toast.classList.remove('visible'), 4000)
    },
    showUser({ id, name }) {
      identity.hidden = false
      identity.textContent = `Signed in as ${name === undefined ? id : `${name} (${id})`}`
    },
    showState(state) {
      status.textContent = STATUS_TEXT[state]
      status.dataset.state = state
      document.documentElement.dataset.connection = state
      replaceChildren(banner, [isOffline(state) && offlineNotice(state === 'restarting')])
    },
  }
}
