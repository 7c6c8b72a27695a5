/**
 * The web console page: connects to the relay's WebSocket (through
 * `consoleConnectionMachine`, in `connection.ts`), and draws the asks that
 * `asks.ts` keeps (one `consoleAskMachine` and one `questionnaireMachine`
 * each): the queue, the selected ask's card, what the page tells the user.
 * Bundled by `npm run console:build` into `page-assets.generated.ts`.
 */
import type { ConsoleAskOutput, ConsoleConnectionEnd } from '../../../machines/index.js'
import { renderAskView, viewKey } from './ask-view.js'
import type { AskView } from './ask-view.js'
import { followAskLinks } from './ask-link.js'
import { createPageAsks } from './asks.js'
import { createAttention } from './attention.js'
import { connectToHost } from './connection.js'
import type { ConnectionState } from './connection.js'
import { replaceChildren } from './dom.js'
import { isSending, queueItems, summary } from './queue-view.js'
import type { Ask } from './queue-view.js'
import { buildShell, isOffline } from './shell.js'
import { clamp, emptyStage, endedStage, sendingStage } from './stage-views.js'
import type { SentNotice } from './stage-views.js'
import { refreshDeadlines } from './view-kit.js'
import { approvalsView, readUser } from './wire.js'

const params = new URLSearchParams(location.search)
const token = params.get('token') ?? ''
const socketUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?token=${encodeURIComponent(token)}`

let selected: string | undefined
let view: { rpcId: string; view: AskView } | undefined
let lastSent: SentNotice | undefined
let ticker: ReturnType<typeof setInterval> | undefined
/** The connection as last reported: while it is down the page keeps what it shows, marked so. */
let connectionState: ConnectionState = 'connecting'
/** Who the host says this page is signed in as (a console with users); anonymous otherwise. */
let me: string | undefined

const attention = createAttention({
  onOpen: (rpcId) => {
    if (asks.isListed(rpcId)) select(rpcId, true)
  },
})
const shell = buildShell([attention.control])
const { queueList, queueCount, stage, showToast, showState } = shell
const links = followAskLinks({
  shows: (askId) => asks.isListed(askId),
  select: (askId) => select(askId, true),
})

function renderQueue(): void {
  const shown = asks.listed()
  queueCount.textContent = String(shown.length)
  attention.setWaiting(shown.length)
  replaceChildren(
    queueList,
    queueItems(shown, selected, (rpcId) => select(rpcId, true)),
  )
}

function renderStage(focus: boolean): void {
  // The host is gone for good: nothing renders an ask again.
  if (connectionState === 'ended') return
  const ask = selected === undefined || !asks.isListed(selected) ? undefined : asks.get(selected)
  if (ask === undefined) {
    view = undefined
    replaceChildren(stage, [emptyStage(lastSent, isOffline(connectionState))])
    return
  }
  const snapshot = ask.actor.getSnapshot()
  if (snapshot.status !== 'active') {
    view = undefined
    replaceChildren(stage, [sendingStage(isOffline(connectionState))])
    return
  }
  if (view?.rpcId === ask.rpcId && view.view.key === viewKey(snapshot)) {
    view.view.update(snapshot)
    return
  }
  const hadFocus = stage.contains(document.activeElement)
  view = {
    rpcId: ask.rpcId,
    view: renderAskView(snapshot, {
      sessionId: ask.sessionId,
      deadline: ask.deadline,
      approvals: () => approvalsView(ask.approvals, me),
      send: (event) => ask.actor.send(event),
    }),
  }
  replaceChildren(stage, [view.view.root])
  // Keyboard first: a question that arrives while nothing has focus takes it.
  if (focus || hadFocus || document.activeElement === document.body) view.view.focus()
}

function select(rpcId: string | undefined, focus = false): void {
  selected = rpcId
  renderQueue()
  links.reveal(queueList)
  renderStage(focus)
  // One clock for every countdown just drawn, so the queue and the card agree to the second.
  refreshDeadlines()
}

/** The selected ask left the list: the next one takes the stage, or none. */
function selectNext(): void {
  const hadFocus = stage.contains(document.activeElement)
  select(asks.listed()[0]?.rpcId, hadFocus)
}

/** Counts down while some listed ask has a deadline; stops when none has. */
function updateTicker(): void {
  const needed = asks.listed().some((ask) => ask.deadline !== undefined)
  if (needed && ticker === undefined) ticker = setInterval(() => refreshDeadlines(), 1000)
  if (!needed && ticker !== undefined) {
    clearInterval(ticker)
    ticker = undefined
  }
}

/** What shows `ask` is drawn again: the queue, and the stage when it is selected. */
function changed(ask: Ask): void {
  renderQueue()
  if (selected === ask.rpcId) renderStage(false)
}

/** An ask is listed, new or back from a reconnect: it takes the stage when nothing else has it. */
function listedAgain(ask: Ask): void {
  updateTicker()
  if (selected === undefined || links.wanted(ask.rpcId)) {
    if (!isSending(ask)) lastSent = undefined
    select(ask.rpcId, false)
  } else renderQueue()
}

/** The ask left the list, or with `output` the page: why decides what the page says. */
function left(ask: Ask, output?: ConsoleAskOutput): void {
  connection.left(ask.rpcId)
  if (output?.left === 'console-ended') return
  updateTicker()
  if (output?.left === 'accepted') {
    lastSent = { summary: summary(ask), kind: output.sent ?? 'answered' }
  }
  if (selected === ask.rpcId) selectNext()
  else if (selected === undefined) renderStage(false)
  // Sent ✓ shows once: on the empty stage when nothing else waits, as a toast over the next ask.
  if (output?.left === 'accepted' && selected !== undefined) {
    showToast(`Sent ✓ “${clamp(summary(ask), 80)}”`)
  }
}

const asks = createPageAsks(
  {
    send: (frame) => connection.send(frame),
    offered: (rpcId) => connection.offered(rpcId),
    arrived(ask) {
      attention.arrived({ rpcId: ask.rpcId, summary: summary(ask), sessionId: ask.sessionId })
      listedAgain(ask)
    },
    // Carried over a drop and offered again: back on the list, which is not news.
    returned: listedAgain,
    changed,
    left,
    restarted(ask) {
      if (view?.rpcId === ask.rpcId) view = undefined
    },
    tell: showToast,
  },
  () => me,
)

function onFrame(frame: Record<string, unknown>): void {
  if (asks.frame(frame)) return
  if (frame.type === 'hello') {
    const user = readUser(frame.user)
    if (user === undefined) return
    // First on every connection, before any ask: nothing shown yet depends on it.
    me = user.id
    shell.showUser(user)
  }
  if (frame.type === 'error' && typeof frame.message === 'string') showToast(frame.message)
}

function onState(state: ConnectionState): void {
  const wasOffline = isOffline(connectionState)
  connectionState = state
  showState(state)
  // The page keeps every ask it shows: the host replays the ones still pending when it is back.
  if (isOffline(state) === wasOffline) return
  // An empty or sending stage says whether the console is there; a questionnaire stays as it is.
  if (selected === undefined || asks.get(selected)?.actor.getSnapshot().status !== 'active') {
    renderStage(false)
  }
}

/** The host is gone for good: every ask leaves the page, and the stage says why. */
function onEnded(reason: ConsoleConnectionEnd): void {
  const unconfirmed = asks.ended()
  selected = undefined
  view = undefined
  updateTicker()
  renderQueue()
  const hadFocus = stage.contains(document.activeElement)
  replaceChildren(stage, [endedStage(unconfirmed, reason)])
  if (hadFocus) stage.focus()
}

renderStage(false)
renderQueue()
// Last: every use of it is in a handler that runs once the page is built.
const connection = connectToHost({
  url: socketUrl,
  openSocket: (url) => new WebSocket(url),
  onFrame,
  onState,
  onEnded,
  onUnoffered: (rpcIds) => asks.unoffered(rpcIds),
})
