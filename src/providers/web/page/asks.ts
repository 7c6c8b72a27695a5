/**
 * The asks of the console page, without its DOM: for each ask the host
 * offers, a `consoleAskMachine` (where the ask is on the page) and the
 * `questionnaireMachine` the user answers it with. The host's frames become
 * their events; what they decide reaches the page through {@link PageAskHooks}.
 * No DOM here, so tests drive it in Node.
 */
import { createActor } from 'xstate'
import { consoleAskMachine, questionnaireMachine } from '../../../machines/index.js'
import type { ConsoleAskOutput } from '../../../machines/index.js'
import type { AskUserQuestionItem } from '../../../vocabulary/index.js'
import { forgetDraft, saveDraft, savedDraft } from './drafts.js'
import { summary } from './queue-view.js'
import type { Ask } from './queue-view.js'
import { clamp } from './stage-views.js'
import {
  approvalsView,
  countedText,
  outcomeText,
  readApprovals,
  refusalText,
  respondFrame,
} from './wire.js'

/** What the page does with what the asks' machines decide. */
export interface PageAskHooks {
  /** Sends a frame to the host. */
  send(frame: string): void
  /** The host offered this ask (again). */
  offered(rpcId: string): void
  /** A new ask is listed. */
  arrived(ask: Ask): void
  /** An ask carried aside over a reconnect is listed again. */
  returned(ask: Ask): void
  /** What shows this ask may have changed: its questionnaire, where it is, its count. */
  changed(ask: Ask): void
  /** The ask left the list; with `output`, the page too (its machine ended, and why). */
  left(ask: Ask, output?: ConsoleAskOutput): void
  /** Its questions started over on a new questionnaire: a view of the old one is stale. */
  restarted(ask: Ask): void
  /** Something to tell the user in passing. */
  tell(text: string): void
}

/** The page's asks. */
export interface PageAsks {
  /** The ask the page knows by `rpcId`, listed or not. */
  get(rpcId: string): Ask | undefined
  /** The asks the queue lists, in the order the host first offered them. */
  listed(): Ask[]
  isListed(rpcId: string): boolean
  /** Takes `question/requested`, `question/resolved` or `receipt`; false for any other frame. */
  frame(frame: Record<string, unknown>): boolean
  /** These asks were not offered again after a reconnect: they are carried aside. */
  unoffered(rpcIds: readonly string[]): void
  /** The console's session ended: every ask leaves. Returns how many answers went unconfirmed. */
  ended(): number
}

/** A questionnaire for `ask`'s questions, resumed from the tab's saved draft of them, if any. */
function questionnaire(ask: Pick<Ask, 'rpcId' | 'questions'>): Ask['actor'] {
  const snapshot = savedDraft(ask.rpcId, ask.questions)
  return createActor(questionnaireMachine, {
    input: { questions: ask.questions },
    ...(snapshot === undefined ? {} : { snapshot }),
  })
}

/** What a `question/requested` frame says of a new ask; nothing without a list of questions. */
function offerOf(frame: Record<string, unknown>): Omit<Ask, 'actor' | 'life'> | undefined {
  if (!Array.isArray(frame.questions)) return undefined
  return {
    rpcId: String(frame.rpcId),
    sessionId: typeof frame.sessionId === 'string' ? frame.sessionId : undefined,
    questions: frame.questions as AskUserQuestionItem[],
    deadline:
      typeof frame.deadline === 'number' && Number.isFinite(frame.deadline)
        ? { at: frame.deadline, since: Date.now() }
        : undefined,
    approvals: readApprovals(frame.approvals),
  }
}

/**
 * The page's asks; `signedInAs` says who the page is signed in as (an offer
 * whose count names them has their approval), when the host said.
 */
export function createPageAsks(
  hooks: PageAskHooks,
  signedInAs: () => string | undefined,
): PageAsks {
  const asks = new Map<string, Ask>()
  const isListed = (rpcId: string) => asks.get(rpcId)?.life.getSnapshot().hasTag('listed') === true
  const named = (ask: Ask) => `“${clamp(summary(ask), 80)}”`

  /** Starts `ask`'s questionnaire: its drafts are kept, and once done, its answer is the ask's. */
  function startQuestions(ask: Ask): void {
    const { actor, rpcId } = ask
    actor.start()
    // A stopped questionnaire (started over, or its ask gone) reports nothing more.
    actor.subscribe((snapshot) => {
      if (snapshot.status === 'active') saveDraft(rpcId, actor.getPersistedSnapshot())
      else forgetDraft(rpcId)
      if (snapshot.status === 'done') {
        const { output } = snapshot
        const sent = output.status === 'submitted' ? 'answered' : output.reason
        ask.life.send({ type: 'answered', frame: respondFrame(rpcId, output), sent })
      }
      hooks.changed(ask)
    })
  }

  function start(frame: Record<string, unknown>): Ask | undefined {
    const offer = offerOf(frame)
    if (offer === undefined) return undefined
    const { rpcId } = offer
    const ask: Ask = {
      ...offer,
      actor: questionnaire(offer),
      life: createActor(consoleAskMachine),
    }
    asks.set(rpcId, ask)
    startQuestions(ask)
    const { life } = ask
    life.on('answer.send', ({ frame: respond }) => hooks.send(respond))
    life.on('questions.restart', () => {
      ask.actor.stop()
      // From nothing: what the user had sent is not used.
      forgetDraft(rpcId)
      ask.actor = questionnaire(ask)
      startQuestions(ask)
      hooks.restarted(ask)
    })
    life.start()
    let wasListed = true
    life.subscribe((snapshot) => {
      const listed = snapshot.hasTag('listed')
      if (snapshot.status === 'done') {
        asks.delete(rpcId)
        ask.actor.stop()
        forgetDraft(rpcId)
        hooks.left(ask, snapshot.output)
      } else if (listed !== wasListed) {
        if (listed) hooks.returned(ask)
        else hooks.left(ask)
      }
      wasListed = listed
      hooks.changed(ask)
    })
    return ask
  }

  function requested(frame: Record<string, unknown>): void {
    const known = asks.get(String(frame.rpcId))
    if (known === undefined) {
      const ask = start(frame)
      if (ask === undefined) return
      hooks.offered(ask.rpcId)
      hooks.arrived(ask)
      return
    }
    known.approvals = readApprovals(frame.approvals)
    hooks.offered(known.rpcId)
    // Shown before a reconnect, or again with a new count: its machine decides what goes again.
    known.life.send({
      type: 'offered',
      counted: approvalsView(known.approvals, signedInAs())?.mine === true,
    })
    hooks.changed(known)
  }

  function resolved(ask: Ask, frame: Record<string, unknown>): void {
    ask.life.send({ type: 'resolved' })
    // Ended without this page's answer; with it, the receipt that follows says whose won.
    if (ask.life.getSnapshot().output?.left === 'resolved') {
      hooks.tell(`${named(ask)} ${outcomeText[String(frame.outcome)] ?? 'ended'}.`)
    }
  }

  /** How the host took this page's answer: the ask's machine decides what follows, the page says it. */
  function receipt(ask: Ask, frame: Record<string, unknown>): void {
    const counted = readApprovals(frame.counted)
    if (frame.accepted === true) {
      ask.life.send({ type: 'receipt', verdict: counted === undefined ? 'accepted' : 'counted' })
      if (counted !== undefined) hooks.tell(countedText(counted))
      return
    }
    const notPending = frame.reason === 'not-pending'
    ask.life.send({ type: 'receipt', verdict: notPending ? 'not-pending' : 'refused' })
    hooks.tell(
      notPending
        ? `${named(ask)} was already settled; your answer was not used.`
        : refusalText(frame.reason, frame.message),
    )
  }

  const listed = () => [...asks.values()].filter((ask) => isListed(ask.rpcId))

  return {
    get: (rpcId) => asks.get(rpcId),
    listed,
    isListed,
    frame(frame) {
      if (frame.type === 'question/requested') requested(frame)
      else if (frame.type !== 'question/resolved' && frame.type !== 'receipt') return false
      else {
        const ask = asks.get(String(frame.rpcId))
        if (ask !== undefined && frame.type === 'receipt') receipt(ask, frame)
        else if (ask !== undefined) resolved(ask, frame)
      }
      return true
    },
    unoffered(rpcIds) {
      const dropped = listed().filter((ask) => rpcIds.includes(ask.rpcId))
      // Carried aside, not stopped: a host that offers one later still gets the user's work.
      for (const ask of dropped) ask.life.send({ type: 'unoffered' })
      const [first] = dropped
      if (first === undefined) return
      hooks.tell(
        dropped.length === 1
          ? `${named(first)} is no longer waiting: it ended while the console was away.`
          : `${dropped.length} questions are no longer waiting: they ended while the console was away.`,
      )
    },
    ended() {
      let unconfirmed = 0
      for (const ask of [...asks.values()]) {
        ask.life.send({ type: 'console.ended' })
        if (ask.life.getSnapshot().output?.sent !== undefined) unconfirmed += 1
      }
      return unconfirmed
    },
  }
}
