/**
 * The web console page: connects to the relay's WebSocket, lists every
 * pending ask, and drives one `questionnaireMachine` per ask. Bundled by
 * `npm run build:console` into `page-assets.generated.ts`.
 */
import { createActor } from 'xstate'
import type { Actor, Snapshot } from 'xstate'
import { questionnaireMachine } from '../../../machines/index.js'
import type { AskUserQuestionItem } from '../../../vocabulary/index.js'
import { renderAskView, viewKey } from './ask-view.js'
import type { AskView } from './ask-view.js'
import { h, replaceChildren } from './dom.js'

type QuestionnaireActor = Actor<typeof questionnaireMachine>

interface Ask {
  rpcId: string
  sessionId: string | undefined
  questions: AskUserQuestionItem[]
  actor: QuestionnaireActor
  /** The response sent for it, kept until the host confirms, to resend after a reconnect. */
  response: string | undefined
}

const params = new URLSearchParams(location.search)
const token = params.get('token') ?? ''
const socketUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?token=${encodeURIComponent(token)}`

const asks = new Map<string, Ask>()
/** Asks from before a reconnect: a replayed one resumes where the user left it. */
let carried = new Map<string, Ask>()
let selected: string | undefined
/** The ask on screen when the connection dropped: selected again when it is replayed. */
let wanted: string | undefined
let view: { rpcId: string; view: AskView } | undefined
let socket: WebSocket | undefined
let retryMs = 250
let toastTimer: ReturnType<typeof setTimeout> | undefined

const status = h('span', { className: 'status', text: 'Connecting…', attrs: { role: 'status' } })
const queueList = h('ul', { className: 'queue-list' })
const queueCount = h('span', { className: 'count', text: '0' })
const stage = h('main', { className: 'stage', attrs: { id: 'stage', tabindex: -1 } })
const toast = h('div', { className: 'toast', attrs: { role: 'status', 'aria-live': 'polite' } })

document
  .getElementById('app')
  ?.replaceWith(
    h('div', { className: 'app', attrs: { id: 'app' } }, [
      h('header', { className: 'topbar' }, [
        h('span', { className: 'brand' }, [
          h('span', { className: 'brand-mark', attrs: { 'aria-hidden': 'true' } }),
          'askseam',
        ]),
        h('span', { className: 'brand-sub', text: 'console' }),
        h('span', { className: 'spacer' }),
        status,
      ]),
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

function showToast(text: string): void {
  toast.textContent = text
  toast.classList.add('visible')
  if (toastTimer !== undefined) clearTimeout(toastTimer)
  toastTimer = setTimeout(() => toast.classList.remove('visible'), 4000)
}

function setStatus(text: string, state: 'online' | 'offline'): void {
  status.textContent = text
  status.dataset.state = state
}

function summary(ask: Ask): string {
  const [first] = ask.questions
  return first?.header ?? first?.question ?? ask.rpcId
}

function renderQueue(): void {
  queueCount.textContent = String(asks.size)
  document.title = asks.size === 0 ? 'askseam console' : `(${asks.size}) askseam console`
  replaceChildren(
    queueList,
    [...asks.values()].map((ask) => {
      const snapshot = ask.actor.getSnapshot()
      const total = ask.questions.length
      const [first] = ask.questions
      return h('li', {}, [
        h(
          'button',
          {
            className: 'queue-item',
            attrs: {
              type: 'button',
              'aria-current': ask.rpcId === selected ? 'true' : undefined,
              'aria-label': `${summary(ask)}${ask.sessionId === undefined ? '' : `, session ${ask.sessionId}`}, ${total} question${total === 1 ? '' : 's'}`,
            },
            on: { click: () => select(ask.rpcId, true) },
          },
          [
            h('span', { className: 'queue-item-title', text: summary(ask) }),
            first !== undefined &&
              first.header !== undefined &&
              h('span', { className: 'queue-item-text', text: first.question }),
            h('span', { className: 'queue-item-meta' }, [
              snapshot.value === 'planReview'
                ? 'Plan to review'
                : `${total} question${total === 1 ? '' : 's'}`,
              ask.sessionId !== undefined && ` · ${ask.sessionId}`,
              ask.response !== undefined && ' · sending…',
            ]),
          ],
        ),
      ])
    }),
  )
}

function renderStage(focus: boolean): void {
  const ask = selected === undefined ? undefined : asks.get(selected)
  if (ask === undefined) {
    view = undefined
    replaceChildren(stage, [
      h('div', { className: 'empty' }, [
        h('div', { className: 'empty-mark', attrs: { 'aria-hidden': 'true' } }),
        h('h2', { text: 'Nothing to answer right now' }),
        h('p', { text: 'When your agent stops to ask something, the question appears here.' }),
      ]),
    ])
    return
  }
  const snapshot = ask.actor.getSnapshot()
  if (snapshot.status !== 'active') {
    view = undefined
    replaceChildren(stage, [
      h('div', { className: 'empty' }, [
        h('div', { className: 'spinner', attrs: { 'aria-hidden': 'true' } }),
        h('h2', { text: 'Sending your answer…' }),
      ]),
    ])
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
  renderStage(focus)
}

function respond(ask: Ask): void {
  const output = ask.actor.getSnapshot().output
  if (output === undefined) return
  ask.response = JSON.stringify({
    type: 'question/respond',
    rpcId: ask.rpcId,
    result:
      output.status === 'submitted'
        ? { ok: true, value: output.answer }
        : { ok: false, error: { code: 'cancelled', reason: output.reason } },
  })
  socket?.send(ask.response)
}

const draftKey = (rpcId: string) => `askseam:draft:${rpcId}`

/** The tab's saved progress on an ask, so a reload resumes it; only for the very same questions. */
function savedDraft(
  rpcId: string,
  questions: AskUserQuestionItem[],
): Snapshot<unknown> | undefined {
  try {
    const saved = JSON.parse(sessionStorage.getItem(draftKey(rpcId)) ?? 'null') as {
      status?: unknown
      context?: { questions?: unknown }
    } | null
    if (saved?.status !== 'active') return undefined
    if (JSON.stringify(saved.context?.questions) !== JSON.stringify(questions)) return undefined
    return saved as Snapshot<unknown>
  } catch {
    return undefined
  }
}

function saveDraft(ask: Ask): void {
  try {
    sessionStorage.setItem(draftKey(ask.rpcId), JSON.stringify(ask.actor.getPersistedSnapshot()))
  } catch {
    // Storage full or disabled: a reload then starts the questions over, nothing worse.
  }
}

function forgetDraft(rpcId: string): void {
  try {
    sessionStorage.removeItem(draftKey(rpcId))
  } catch {
    // Nothing was stored.
  }
}

function startAsk(
  rpcId: string,
  sessionId: string | undefined,
  questions: AskUserQuestionItem[],
  resume = true,
): Ask {
  const snapshot = resume ? savedDraft(rpcId, questions) : undefined
  const ask: Ask = {
    rpcId,
    sessionId,
    questions,
    actor: createActor(questionnaireMachine, {
      input: { questions },
      ...(snapshot === undefined ? {} : { snapshot }),
    }),
    response: undefined,
  }
  ask.actor.subscribe((snapshot) => {
    if (!asks.has(rpcId)) return
    if (snapshot.status === 'active') saveDraft(ask)
    else forgetDraft(rpcId)
    if (snapshot.status === 'done' && ask.response === undefined) respond(ask)
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
  ask.actor.stop()
  forgetDraft(rpcId)
  if (selected === rpcId) {
    const next = asks.keys().next()
    const hadFocus = stage.contains(document.activeElement)
    select(next.done === true ? undefined : next.value, hadFocus)
  } else {
    renderQueue()
  }
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
      if (asks.has(rpcId) || !Array.isArray(frame.questions)) return
      const sessionId = typeof frame.sessionId === 'string' ? frame.sessionId : undefined
      const previous = carried.get(rpcId)
      carried.delete(rpcId)
      const ask = previous ?? startAsk(rpcId, sessionId, frame.questions as AskUserQuestionItem[])
      asks.set(rpcId, ask)
      if (ask.response !== undefined) socket?.send(ask.response)
      if (selected === undefined || rpcId === wanted) select(rpcId, false)
      else renderQueue()
      return
    }
    case 'question/resolved': {
      const rpcId = String(frame.rpcId)
      const ask = asks.get(rpcId)
      if (ask === undefined) return
      const mine = ask.response !== undefined
      removeAsk(rpcId)
      if (!mine) showToast(`“${summary(ask)}” ${outcomeText[String(frame.outcome)] ?? 'ended'}.`)
      return
    }
    case 'receipt': {
      const ask = asks.get(String(frame.rpcId))
      if (ask === undefined || frame.accepted === true) return
      if (frame.reason === 'not-pending') {
        removeAsk(ask.rpcId)
        showToast(`“${summary(ask)}” is no longer waiting for an answer.`)
        return
      }
      // The host refused the response: start the questions over rather than lose them.
      asks.delete(ask.rpcId)
      ask.actor.stop()
      forgetDraft(ask.rpcId)
      asks.set(ask.rpcId, startAsk(ask.rpcId, ask.sessionId, ask.questions, false))
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

function connect(): void {
  const ws = new WebSocket(socketUrl)
  socket = ws
  ws.addEventListener('open', () => {
    retryMs = 250
    setStatus('Connected', 'online')
  })
  ws.addEventListener('message', (event) => {
    let frame: unknown
    try {
      frame = JSON.parse(String(event.data))
    } catch {
      return
    }
    if (typeof frame === 'object' && frame !== null) onFrame(frame as Record<string, unknown>)
  })
  ws.addEventListener('close', () => {
    if (socket !== ws) return
    setStatus('Reconnecting…', 'offline')
    // The host replays every ask still pending; keep ours so a replayed one resumes where it was.
    for (const ask of carried.values()) ask.actor.stop()
    carried = new Map(asks)
    wanted = selected
    asks.clear()
    select(undefined)
    setTimeout(connect, retryMs)
    retryMs = Math.min(retryMs * 2, 5000)
  })
}

renderStage(false)
renderQueue()
connect()
