/**
 * The web console page: connects to the relay's WebSocket (through
 * `consoleConnectionMachine`), lists every pending ask, and drives one
 * `questionnaireMachine` per ask. Bundled by `npm run console:build` into
 * `page-assets.generated.ts`.
 */
import { createActor } from 'xstate'
import { questionnaireMachine } from '../../../machines/index.js'
import type { AskUserQuestionItem } from '../../../vocabulary/index.js'
import { renderAskView, viewKey } from './ask-view.js'
import type { AskView } from './ask-view.js'
import { followAskLinks } from './ask-link.js'
import { createAttention } from './attention.js'
import { connectToHost } from './connection.js'
import type { ConnectionState } from './connection.js'
import { replaceChildren } from './dom.js'
import { forgetDraft, saveDraft, savedDraft } from './drafts.js'
import { queueItems, summary } from './queue-view.js'
import type { Ask } from './queue-view.js'
import { buildShell, isOffline } from './shell.js'
import { clamp, emptyStage, endedStage, sendingStage } from './stage-views.js'
import type { SentNotice } from './stage-views.js'
import { refreshDeadlines } from './view-kit.js'

const params = new URLSearchParams(location.search)
const token = params.get('token') ?? ''
const socketUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?token=${encodeURIComponent(token)}`

/**
 * How long after a reconnect the host has to offer an ask again before the
 * page stops showing it: a restarted console presents its store's asks
 * within a second or two, but none sooner than its seam has read them.
 */
const REOFFER_GRACE_MS = 10_000

const asks = new Map<string, Ask>()
/** Asks shown from before a reconnect that the host has not offered again yet. */
const unoffered = new Set<string>()
let unofferedTimer: ReturnType<typeof setTimeout> | undefined
/** Asks the host did not offer again in time: one offered later still resumes where the user left it. */
const carried = new Map<string, Ask>()
/** Answered asks the host resolved before its receipt came: the receipt says whose answer won. */
const awaitingReceipt = new Map<string, Ask>()
let selected: string | undefined
let view: { rpcId: string; view: AskView } | undefined
let lastSent: SentNotice | undefined
let ticker: ReturnType<typeof setInterval> | undefined
/** The host is gone for good: nothing renders an ask again. */
let ended = false
/** The connection as last reported: while it is down the page keeps what it shows, marked so. */
let connectionState: ConnectionState = 'connecting'

const attention = createAttention({
  onOpen: (rpcId) => {
    if (asks.has(rpcId)) select(rpcId, true)
  },
})
const { queueList, queueCount, stage, showToast, showState } = buildShell([attention.control])
const links = followAskLinks({
  shows: (askId) => asks.has(askId),
  select: (askId) => select(askId, true),
})

function renderQueue(): void {
  queueCount.textContent = String(asks.size)
  attention.setWaiting(asks.size)
  replaceChildren(
    queueList,
    queueItems(asks.values(), selected, (rpcId) => select(rpcId, true)),
  )
}

function renderStage(focus: boolean): void {
  if (ended) return
  const ask = selected === undefined ? undefined : asks.get(selected)
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

/** Counts down while some ask has a deadline; stops when none has. */
function updateTicker(): void {
  const needed = [...asks.values()].some((ask) => ask.deadline !== undefined)
  if (needed && ticker === undefined) ticker = setInterval(() => refreshDeadlines(), 1000)
  if (!needed && ticker !== undefined) {
    clearInterval(ticker)
    ticker = undefined
  }
}

function respond(ask: Ask): void {
  const output = ask.actor.getSnapshot().output
  if (output === undefined) return
  ask.sent = output.status === 'submitted' ? 'answered' : output.reason
  connection.sendAnswer(
    ask.rpcId,
    JSON.stringify({
      type: 'question/respond',
      rpcId: ask.rpcId,
      result:
        output.status === 'submitted'
          ? { ok: true, value: output.answer }
          : { ok: false, error: { code: 'cancelled', reason: output.reason } },
    }),
  )
}

function startAsk(
  rpcId: string,
  sessionId: string | undefined,
  questions: AskUserQuestionItem[],
  deadline: number | undefined,
  resume = true,
): Ask {
  const snapshot = resume ? savedDraft(rpcId, questions) : undefined
  const ask: Ask = {
    rpcId,
    sessionId,
    questions,
    deadline: deadline === undefined ? undefined : { at: deadline, since: Date.now() },
    actor: createActor(questionnaireMachine, {
      input: { questions },
      ...(snapshot === undefined ? {} : { snapshot }),
    }),
    sent: undefined,
  }
  ask.actor.subscribe((snapshot) => {
    if (!asks.has(rpcId)) return
    if (snapshot.status === 'active') saveDraft(rpcId, ask.actor.getPersistedSnapshot())
    else forgetDraft(rpcId)
    if (snapshot.status === 'done' && ask.sent === undefined) respond(ask)
    renderQueue()
    if (selected === rpcId) renderStage(false)
  })
  ask.actor.start()
  return ask
}

function removeAsk(rpcId: string): void {
  const ask = asks.get(rpcId)
  if (ask === undefined) return
  asks.delete(rpcId)
  unoffered.delete(rpcId)
  ask.actor.stop()
  forgetDraft(rpcId)
  updateTicker()
  if (selected === rpcId) {
    const next = asks.keys().next()
    const hadFocus = stage.contains(document.activeElement)
    select(next.done === true ? undefined : next.value, hadFocus)
  } else {
    renderQueue()
  }
}

/** The host confirmed the user's answer (or dismissal): Sent ✓. */
function confirmSent(ask: Ask): void {
  awaitingReceipt.delete(ask.rpcId)
  lastSent = { summary: summary(ask), kind: ask.sent ?? 'answered' }
  if (asks.has(ask.rpcId)) removeAsk(ask.rpcId)
  else if (selected === undefined) renderStage(false)
  // Sent ✓ shows once: on the empty stage when nothing else waits, as a toast over the next ask.
  if (selected !== undefined) showToast(`Sent ✓ “${clamp(summary(ask), 80)}”`)
}

const outcomeText: Record<string, string> = {
  answered: 'was answered',
  cancelled: 'was dismissed',
  aborted: 'was withdrawn by the agent',
  'timed-out': 'timed out',
}

function onFrame(frame: Record<string, unknown>): void {
  switch (frame.type) {
    case 'question/requested': {
      const rpcId = String(frame.rpcId)
      if (asks.has(rpcId)) {
        // Shown since before a reconnect: it is still pending, and an unconfirmed answer goes again.
        unoffered.delete(rpcId)
        connection.offered(rpcId)
        return
      }
      if (!Array.isArray(frame.questions)) return
      const sessionId = typeof frame.sessionId === 'string' ? frame.sessionId : undefined
      const deadline =
        typeof frame.deadline === 'number' && Number.isFinite(frame.deadline)
          ? frame.deadline
          : undefined
      const previous = carried.get(rpcId)
      carried.delete(rpcId)
      const ask =
        previous ?? startAsk(rpcId, sessionId, frame.questions as AskUserQuestionItem[], deadline)
      asks.set(rpcId, ask)
      updateTicker()
      connection.offered(rpcId)
      // Only an ask the page never showed is news; one carried over a drop is not.
      if (previous === undefined) attention.arrived({ rpcId, summary: summary(ask), sessionId })
      if (selected === undefined || links.wanted(rpcId)) {
        if (ask.sent === undefined) lastSent = undefined
        select(rpcId, false)
      } else renderQueue()
      return
    }
    case 'question/resolved': {
      const rpcId = String(frame.rpcId)
      const ask = asks.get(rpcId)
      if (ask === undefined) return
      connection.settled(rpcId)
      const mine = ask.sent !== undefined
      // Ours may have won: the receipt that follows says so.
      if (mine) awaitingReceipt.set(rpcId, ask)
      removeAsk(rpcId)
      if (!mine)
        showToast(`“${clamp(summary(ask), 80)}” ${outcomeText[String(frame.outcome)] ?? 'ended'}.`)
      return
    }
    case 'receipt': {
      const rpcId = String(frame.rpcId)
      connection.settled(rpcId)
      const ask = asks.get(rpcId) ?? awaitingReceipt.get(rpcId)
      if (ask === undefined) return
      if (frame.accepted === true) {
        confirmSent(ask)
        return
      }
      awaitingReceipt.delete(rpcId)
      if (frame.reason === 'not-pending') {
        removeAsk(ask.rpcId)
        showToast(`“${clamp(summary(ask), 80)}” was already settled; your answer was not used.`)
        return
      }
      // The host refused the response: start the questions over rather than lose them.
      asks.delete(ask.rpcId)
      ask.actor.stop()
      forgetDraft(ask.rpcId)
      asks.set(
        ask.rpcId,
        startAsk(ask.rpcId, ask.sessionId, ask.questions, ask.deadline?.at, false),
      )
      renderQueue()
      if (selected === ask.rpcId) renderStage(true)
      showToast(
        frame.reason === 'forbidden'
          ? 'This console may not answer that session.'
          : `The host did not accept the answer${typeof frame.message === 'string' ? `: ${frame.message}` : ''}.`,
      )
      return
    }
    case 'error':
      if (typeof frame.message === 'string') showToast(frame.message)
      return
    default:
      return
  }
}

/** Asks the host did not offer again after a reconnect have ended or moved on: they leave the page. */
function dropUnoffered(): void {
  unofferedTimer = undefined
  const dropped: Ask[] = []
  for (const rpcId of [...unoffered]) {
    const ask = asks.get(rpcId)
    unoffered.delete(rpcId)
    if (ask === undefined) continue
    dropped.push(ask)
    // Kept aside, not stopped: a host that offers it later still gets the user's work.
    carried.set(rpcId, ask)
    asks.delete(rpcId)
    if (selected === rpcId) {
      const next = asks.keys().next()
      select(next.done === true ? undefined : next.value)
    }
  }
  updateTicker()
  renderQueue()
  const [first] = dropped
  if (first !== undefined) {
    showToast(
      dropped.length === 1
        ? `“${clamp(summary(first), 80)}” is no longer waiting: it ended while the console was away.`
        : `${dropped.length} questions are no longer waiting: they ended while the console was away.`,
    )
  }
}

function onState(state: ConnectionState): void {
  const wasOffline = isOffline(connectionState)
  connectionState = state
  showState(state)
  if (isOffline(state)) {
    // The page keeps every ask it shows: the host replays the ones still pending when it is back.
    if (unofferedTimer !== undefined) clearTimeout(unofferedTimer)
    unofferedTimer = undefined
    unoffered.clear()
    if (selected === undefined || asks.get(selected)?.actor.getSnapshot().status !== 'active') {
      renderStage(false)
    }
  } else if (state === 'online' && wasOffline) {
    for (const rpcId of asks.keys()) unoffered.add(rpcId)
    unofferedTimer = setTimeout(dropUnoffered, REOFFER_GRACE_MS)
    if (selected === undefined || asks.get(selected)?.actor.getSnapshot().status !== 'active') {
      renderStage(false)
    }
  } else if (state === 'ended') {
    ended = true
    if (unofferedTimer !== undefined) clearTimeout(unofferedTimer)
    const unconfirmed = [...asks.values(), ...carried.values(), ...awaitingReceipt.values()].filter(
      (ask) => ask.sent !== undefined,
    ).length
    for (const ask of [...asks.values(), ...carried.values()]) ask.actor.stop()
    asks.clear()
    carried.clear()
    unoffered.clear()
    awaitingReceipt.clear()
    selected = undefined
    view = undefined
    updateTicker()
    renderQueue()
    const hadFocus = stage.contains(document.activeElement)
    replaceChildren(stage, [endedStage(unconfirmed, connection.ended ?? 'host-closed')])
    if (hadFocus) stage.focus()
  }
}

renderStage(false)
renderQueue()
// Last: every use of it is in a handler that runs once the page is built.
const connection = connectToHost({
  url: socketUrl,
  openSocket: (url) => new WebSocket(url),
  onFrame,
  onState,
})
