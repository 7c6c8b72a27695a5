/**
 * The web console page: connects to the relay's WebSocket (through
 * `consoleConnectionMachine`), lists every pending ask, and drives one
 * `questionnaireMachine` per ask. Bundled by `npm run console:build` into
 * `page-assets.generated.ts`.
 */
import { createActor } from 'xstate'
import { questionnaireMachine } from '../../../machines/index.js'
import type { ConsoleConnectionEnd } from '../../../machines/index.js'
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
import {
  approvalsView,
  countedText,
  outcomeText,
  readApprovals,
  readUser,
  refusalText,
  respondFrame,
} from './wire.js'
import type { Approvals } from './wire.js'

const params = new URLSearchParams(location.search)
const token = params.get('token') ?? ''
const socketUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?token=${encodeURIComponent(token)}`

const asks = new Map<string, Ask>()
/** Asks the host did not offer again in time: one offered later still resumes where the user left it. */
const carried = new Map<string, Ask>()
/** Answered asks the host resolved before its receipt came: the receipt says whose answer won. */
const awaitingReceipt = new Map<string, Ask>()
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
    if (asks.has(rpcId)) select(rpcId, true)
  },
})
const shell = buildShell([attention.control])
const { queueList, queueCount, stage, showToast, showState } = shell
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
  // The host is gone for good: nothing renders an ask again.
  if (connectionState === 'ended') return
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
  connection.sendAnswer(ask.rpcId, respondFrame(ask.rpcId, output))
}

function startAsk(
  rpcId: string,
  sessionId: string | undefined,
  questions: AskUserQuestionItem[],
  deadline: number | undefined,
  approvals: Approvals | undefined,
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
    approvals,
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
  connection.left(rpcId)
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

/**
 * The host presents an ask again with a new count of approvals. When this
 * page's approval is among them, its answer was counted: the ask starts over
 * (Approve spent, Revise and Discuss still open) instead of sending again.
 */
function recount(ask: Ask, approvals: Ask['approvals']): void {
  ask.approvals = approvals
  if (ask.sent === undefined || approvalsView(approvals, me)?.mine !== true) return
  connection.settled(ask.rpcId)
  startOver(ask)
  if (selected === ask.rpcId) view = undefined
}

/** Starts an ask's questions over, from nothing: what the user had sent is not used. */
function startOver({ rpcId, sessionId, questions, deadline, approvals, actor }: Ask): void {
  asks.delete(rpcId)
  actor.stop()
  forgetDraft(rpcId)
  asks.set(rpcId, startAsk(rpcId, sessionId, questions, deadline?.at, approvals, false))
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

function onFrame(frame: Record<string, unknown>): void {
  switch (frame.type) {
    case 'question/requested': {
      const rpcId = String(frame.rpcId)
      const shown = asks.get(rpcId)
      if (shown !== undefined) {
        // Shown before a reconnect, or again with a new count: an unconfirmed answer goes again.
        recount(shown, readApprovals(frame.approvals))
        connection.offered(rpcId)
        renderQueue()
        if (selected === rpcId) renderStage(false)
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
      const approvals = readApprovals(frame.approvals)
      const questions = frame.questions as AskUserQuestionItem[]
      const ask = previous ?? startAsk(rpcId, sessionId, questions, deadline, approvals)
      ask.approvals = approvals
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
      const counted = readApprovals(frame.counted)
      if (frame.accepted === true && counted !== undefined) {
        awaitingReceipt.delete(rpcId)
        showToast(countedText(counted))
        // Presented again already (its new count has this page's approval): nothing was lost.
        if (ask.sent === undefined) return
        // Otherwise it leaves until the host presents it again with the new count.
        if (asks.has(rpcId)) removeAsk(rpcId)
        return
      }
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
      startOver(ask)
      renderQueue()
      if (selected === ask.rpcId) renderStage(true)
      showToast(refusalText(frame.reason, frame.message))
      return
    }
    case 'hello': {
      const user = readUser(frame.user)
      if (user === undefined) return
      // First on every connection, before any ask: nothing shown yet depends on it.
      me = user.id
      shell.showUser(user)
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
function onUnoffered(rpcIds: string[]): void {
  const dropped: Ask[] = []
  for (const rpcId of rpcIds) {
    const ask = asks.get(rpcId)
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
  // The page keeps every ask it shows: the host replays the ones still pending when it is back.
  if (isOffline(state) === wasOffline) return
  // An empty or sending stage says whether the console is there; a questionnaire stays as it is.
  if (selected === undefined || asks.get(selected)?.actor.getSnapshot().status !== 'active') {
    renderStage(false)
  }
}

/** The host is gone for good: every ask leaves the page, and the stage says why. */
function onEnded(reason: ConsoleConnectionEnd): void {
  const unconfirmed = [...asks.values(), ...carried.values(), ...awaitingReceipt.values()].filter(
    (ask) => ask.sent !== undefined,
  ).length
  for (const ask of [...asks.values(), ...carried.values()]) ask.actor.stop()
  for (const held of [asks, carried, awaitingReceipt]) held.clear()
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
  onUnoffered,
})
