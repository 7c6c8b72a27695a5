import { SimulatedClock, createActor } from 'xstate'
import type { AnyEventObject, SnapshotFrom } from 'xstate'
import { askMachine, presentationMachine } from '../../src/machines/index.js'
import type { AskInput, PresentationEvent, ProviderVerdict } from '../../src/machines/index.js'
import { callerAbortOutcome, timeoutOutcome } from '../../src/vocabulary/index.js'
import type {
  AskErrorData,
  AskOutcome,
  AskPolicy,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  Responder,
} from '../../src/vocabulary/index.js'

/*
 * The model the ask paths come from: the real askMachine with its real
 * presentationMachine child, their effects recorded and none performed, so
 * what a store or a provider answers is a step of the path. A model state is
 * what the two machines reach when every step of its path so far is replayed
 * into fresh actors (XState computes a transition on one machine at a time;
 * replaying keeps the parent and its child in step exactly as the seam runs
 * them). Besides the machines, a state notes what the store holds and how
 * much fake time has passed, which decide the steps that can come next.
 */

export type AskSnapshot = SnapshotFrom<typeof askMachine>
export type PresentationSnapshot = SnapshotFrom<typeof presentationMachine>

export const questions: AskUserQuestionItem[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
  { id: 'note', question: 'Anything else?' },
]
export const goodAnswer: AskUserQuestionAnswer = {
  answers: [
    { id: 'db', selected: ['SQLite'] },
    { id: 'note', selected: [], custom: 'ship it' },
  ],
}
export const badReply = { answers: [{ id: 'db', selected: ['MySQL'] }] }

/** The plan review a policy scenario asks, the policy, and who answers it (DESIGN §12). */
export const planQuestions: AskUserQuestionItem[] = [
  {
    id: 'plan',
    question: 'Ship it?',
    detail: '1. migrate\n2. deploy',
    options: [{ label: 'Approve' }, { label: 'Revise' }],
    intent: { kind: 'plan-review', approve: 'Approve' },
  },
]
export const modelPolicy: AskPolicy = { answerers: ['alice', 'bob'], approvals: 2 }
const responder = (id: string): Responder => ({ id, via: 'web' })
const planAnswer = (label: string) => ({ answers: [{ id: 'plan', selected: [label] }] })
/** The answers a policy scenario's provider gives, by name (a step names its answer). */
export const policyAnswers = {
  aliceApproves: { ...planAnswer('Approve'), by: responder('alice') },
  bobApproves: { ...planAnswer('Approve'), by: responder('bob') },
  malloryApproves: { ...planAnswer('Approve'), by: responder('mallory') },
  bobRevises: { ...planAnswer('Revise'), by: responder('bob') },
} as const

/** The name of an answer a step gives, for the step's key. */
export function answerName(answer: unknown): string {
  if (answer === goodAnswer) return 'good'
  if (answer === badReply) return 'bad'
  const named = Object.entries(policyAnswers).find(([, each]) => each === answer)
  return named === undefined ? 'other' : named[0]
}

/** The questions a scenario asks. */
export const questionsOf = (scenario: Scenario) =>
  scenario.policy === true ? planQuestions : questions
export const answeredElsewhere: AskOutcome = {
  status: 'answered',
  answer: {
    answers: [
      { id: 'db', selected: ['Postgres'] },
      { id: 'note', selected: [] },
    ],
  },
}
/** An answer another seam committed, to the questions `scenario` asks. */
export const answeredElsewhereIn = (scenario: Scenario): AskOutcome =>
  scenario.policy === true
    ? { status: 'answered', answer: planAnswer('Revise') }
    : answeredElsewhere
/** The other seam's caller gave up: an ending that says nothing about the human (DESIGN §10). */
export const abortedElsewhere: AskOutcome = callerAbortOutcome()
export const cancelledElsewhere: AskOutcome = {
  status: 'rejected',
  error: { code: 'ASK_CANCELLED', message: 'dismissed in another console' },
}
/** What the seam makes of a provider that rejects with `ASK_CANCELLED`, and with `new Error('boom')`. */
export const uiCancel: AskErrorData = { code: 'ASK_CANCELLED', message: 'dismissed' }
export const providerFailure: AskErrorData = {
  code: 'PROVIDER_FAILED',
  message: 'The question provider failed: boom',
}

export const WAIT_MS = 1_000
export const GRACE_MS = 2_000
/**
 * Odd, so that it never falls on a durable seam's lease renewal (every HEARTBEAT_MS from a
 * lease write, and every step here moves time by an even count of milliseconds), whose sweep
 * would end the ask at the same instant as its own timer, and before it. Kept short of hours of
 * fake time: a durable store's timers fire all along the way, each with real I/O.
 */
export const DEADLINE_MS = 100_001

/** One run of the seam: its options and what is there when the ask is made. */
export interface Scenario {
  name: string
  providerHere: boolean
  deadline: boolean
  wait: boolean
  grace: boolean
  key: boolean
  /** Whether a provider comes and goes on the other seam along the way. */
  elsewhere: boolean
  /** The ask is made before the seam has read its fleet (the read is held until the path says). */
  fleetUnknown?: boolean
  /** Another seam already holds a pending ask under the key: this one follows it. */
  follows?: boolean
  /** The ask is a plan review with {@link modelPolicy}: who may answer, and two approvals. */
  policy?: boolean
}

/**
 * A step of a path. Most are the machine's own events; the store's answers
 * (`commit.*`) go to whichever of the two machines is writing, and the timer
 * steps move fake time until the timer falls due.
 */
export type ModelStep =
  | { type: 'ask.aborted' }
  | { type: 'seam.closed' }
  | { type: 'ask.settled'; outcome: AskOutcome }
  | { type: 'providers.elsewhere'; active: boolean }
  | { type: 'provider.available' }
  | { type: 'provider.disposed' }
  | { type: 'admission.done'; existing: boolean }
  | { type: 'admission.failed' }
  /** The admission reaches the store, and its reply is lost: the seam hears it failed. */
  | { type: 'admission.lost' }
  | { type: 'commit.done'; outcome: AskOutcome; won: boolean }
  | { type: 'commit.failed' }
  /** The store holds no ask to settle: the ask's admission failed before it was written. */
  | { type: 'commit.unheld' }
  /** A presentation's write reaches the store, and its reply is lost: the feed tells the seam, the write fails. */
  | { type: 'commit.lost' }
  /** The store answers a presentation opening with the approvals it counted so far. */
  | { type: 'votes.read' }
  /** The store counted the presentation's approval (or had it already). */
  | { type: 'vote.counted' }
  | { type: 'vote.already' }
  | { type: 'provider.answered'; answer: unknown }
  | { type: 'provider.failed'; error: AskErrorData }
  | { type: 'wait.elapsed' }
  | { type: 'grace.elapsed' }
  | { type: 'retry.elapsed' }
  /** The pause after a refused answer, before the ask is shown again. */
  | { type: 'pause.elapsed' }
  | { type: 'ask.deadline' }

/** What became of one presentation the model opened: the effects its machine performed. */
export interface PresentationRecord {
  /** The presentation actor that made the call (its session id). */
  by: string
  /** The ids of the approvals the call shows as counted. */
  given: string[]
  /** The error its provider's signal aborted with. */
  ended?: AskErrorData
  /** The verdict its provider was told of its own settlement. */
  told?: ProviderVerdict
}

/** A write (or a read of the votes) still in flight from a presentation that ended or was stopped. */
export interface Orphan {
  kind: 'settle' | 'vote' | 'votes'
  outcome: AskOutcome | undefined
}

export interface ModelState {
  steps: ModelStep[]
  ask: AskSnapshot
  /** The presentation the ask runs now, while it runs. */
  presentation: PresentationSnapshot | undefined
  presentations: PresentationRecord[]
  /** Whether a presentation was stopped by its ask before it ended (it told its provider nothing). */
  dropped: boolean
  /** Every event transition the two machines took along the path, as `<state node id> <event type>`. */
  taken: string[]
  /** What the store holds for the ask, once settled. */
  stored: AskOutcome | undefined
  /** The approvals the store counted on the ask, by id, in order. */
  votes: string[]
  /** Writes of presentations stopped mid-write: still in flight, their answer heard by nobody. */
  orphans: Orphan[]
  /** Fake time, from 0 when the ask was made. */
  now: number
  aborted: boolean
  closed: boolean
  deadlinePassed: boolean
  /** The store holds no row of the ask: its admission failed before it was written. */
  unheld: boolean
}

/** The retry's upper bound: retryDelay(attempts − 1) is at most a fifth over its base. */
export const retryBound = (attempts: number) =>
  Math.ceil(Math.min(5_000, 50 * 2 ** Math.max(0, attempts - 1)) * 1.2)

export const heldAskId = 'held'

export function modelInput(scenario: Scenario, durable: boolean): AskInput {
  return {
    askId: 'model',
    questions: questionsOf(scenario),
    ...(scenario.policy === true ? { policy: modelPolicy } : {}),
    startedAt: 0,
    waitForProviderMs: scenario.wait ? WAIT_MS : 0,
    providerGraceMs: scenario.grace ? GRACE_MS : 0,
    providerHere: scenario.providerHere,
    durable,
    fleetKnown: scenario.fleetUnknown !== true,
    ...(scenario.key ? { key: 'k' } : {}),
    ...(scenario.deadline ? { deadline: DEADLINE_MS } : {}),
  }
}

/** What the search for a timer's event reads of a state node, in either machine. */
interface StateNodeLike {
  transitions: Map<string, unknown>
  states: Record<string, StateNodeLike>
}

const afterEventOf = (delay: string) => {
  const find = (node: StateNodeLike): string | undefined => {
    for (const type of node.transitions.keys())
      if (type.startsWith(`xstate.after.${delay}.`)) return type
    for (const child of Object.values(node.states)) {
      const found = find(child)
      if (found !== undefined) return found
    }
    return undefined
  }
  const type = find(askMachine.root) ?? find(presentationMachine.root)
  if (type === undefined) throw new Error(`no after event for ${delay}`)
  return type
}
const afterEvents = {
  wait: afterEventOf('providerWait'),
  grace: afterEventOf('providerGrace'),
  retry: afterEventOf('retry'),
  commitRetry: afterEventOf('commitRetry'),
  pause: afterEventOf('pause'),
}

/**
 * Sends the event a delay's timer sends when it fires. The machines' event
 * types do not list the `xstate.after.*` events XState makes for their
 * delays, so the target is taken as anything that accepts an event (a
 * method's parameter is checked loosely, which lets the actor in).
 */
function fireTimer(target: { send(event: AnyEventObject): void }, type: string): void {
  target.send({ type })
}

/** Replays `steps` into fresh actors of the two machines, from `scenario`: the state they reach. */
export function replay(scenario: Scenario, durable: boolean, steps: ModelStep[]): ModelState {
  return replayAll(scenario, durable, steps, false).at(-1)!
}

/** What the effects of the replay under way record (one replay runs at a time). */
let recording: { presentations: PresentationRecord[] } = { presentations: [] }

const modelMachine = askMachine.provide({
  actors: {
    presentation: presentationMachine.provide({
      actions: {
        callProvider: ({ context, self }) =>
          void recording.presentations.push({
            by: self.sessionId,
            given: context.given.map((each) => each.id),
          }),
        readVotes: () => undefined,
        commitProposal: () => undefined,
        // Every call of the presentation that was not told its answer is the outcome hears the ending.
        endPresentation: ({ self }, { error }) => {
          for (const record of recording.presentations) {
            if (record.by === self.sessionId && record.ended === undefined)
              record.ended = error.error
          }
        },
        tellSettlement: (_, verdict) => {
          recording.presentations.at(-1)!.told = verdict
        },
      },
    }),
  },
  actions: { admit: () => undefined, offerCommit: () => undefined },
})

/** Replays `steps` into fresh actors of the two machines: the state before any step, then after each. */
export function replayAll(
  scenario: Scenario,
  durable: boolean,
  steps: ModelStep[],
  everyStep = true,
): ModelState[] {
  const presentations: PresentationRecord[] = []
  recording = { presentations }
  let dropped = false
  const machine = modelMachine
  const state = {
    stored: undefined as AskOutcome | undefined,
    votes: [] as string[],
    orphans: [] as Orphan[],
    now: 0,
    aborted: false,
    closed: false,
    deadlinePassed: false,
    unheld: false,
  }
  const taken = new Set<string>()
  // The machines read the time (a presentation's opening, a deadline's timer): the model's own.
  const realNow = Date.now
  Date.now = () => state.now
  const actor = createActor(machine, {
    input: modelInput(scenario, durable),
    clock: new SimulatedClock(),
    inspect: (inspection) => {
      if (inspection.type !== '@xstate.microstep') return
      for (const transition of inspection._transitions) {
        if (transition.eventType !== '')
          taken.add(`${transition.source.id} ${transition.eventType}`)
      }
    },
  })
  const capture = (done: number): ModelState => {
    const ask = actor.getSnapshot()
    const child = ask.children.presentation?.getSnapshot() as PresentationSnapshot | undefined
    return {
      steps: steps.slice(0, done),
      ask,
      presentation: child?.status === 'active' ? child : undefined,
      presentations: presentations.map((record) => ({ ...record })),
      dropped,
      taken: [...taken],
      ...state,
      votes: [...state.votes],
      orphans: [...state.orphans],
    }
  }
  try {
    actor.start()
    const states = everyStep ? [capture(0)] : []
    steps.forEach((step, index) => {
      apply(actor, step, state, () => (dropped = true))
      if (everyStep) states.push(capture(index + 1))
    })
    return everyStep ? states : [capture(steps.length)]
  } finally {
    actor.stop()
    Date.now = realNow
  }
}

type ModelActor = ReturnType<typeof createActor<typeof modelMachine>>

function apply(
  actor: ModelActor,
  step: ModelStep,
  state: {
    stored: AskOutcome | undefined
    votes: string[]
    orphans: Orphan[]
    now: number
    aborted: boolean
    closed: boolean
    deadlinePassed: boolean
    unheld: boolean
  },
  drop: () => void,
): void {
  const before = actor.getSnapshot().children.presentation
  const writing = before?.getSnapshot() as PresentationSnapshot | undefined
  const toPresentation = (event: PresentationEvent) => before!.send(event)
  const writer = () => (actor.getSnapshot().matches('committing') ? 'ask' : 'presentation')
  /** The feed's word that the ask settled: an ending the ask was writing stays in flight, unanswered. */
  const hearSettled = (outcome: AskOutcome, write: 'answered' | 'unanswered' = 'unanswered') => {
    const asking = actor.getSnapshot()
    actor.send({ type: 'ask.settled', outcome })
    if (write === 'unanswered' && isWriting(asking) && !isWriting(actor.getSnapshot())) {
      state.orphans.push({ kind: 'settle', outcome: asking.context.proposal!.outcome })
    }
  }
  switch (step.type) {
    case 'ask.aborted':
      state.aborted = true
      actor.send(step)
      break
    case 'seam.closed':
      state.closed = true
      actor.send(step)
      break
    case 'ask.settled':
      hearSettled(step.outcome)
      // An ending without the human leaves the followed ask: the store holds nothing yet for the new one.
      state.stored = actor.getSnapshot().matches('admitting') ? undefined : step.outcome
      break
    case 'admission.done':
      actor.send({
        type: 'admission.done',
        result: step.existing
          ? {
              status: 'existing',
              ask: { askId: heldAskId, questions, startedAt: 0 },
            }
          : { status: 'admitted' },
      })
      break
    case 'commit.done': {
      state.stored = step.won ? offered(actor, writer()) : step.outcome
      const event = { type: 'commit.done' as const, outcome: state.stored, won: step.won }
      if (writer() === 'ask') actor.send(event)
      else toPresentation(event)
      break
    }
    case 'admission.failed':
      state.unheld = true
      actor.send(step)
      break
    case 'admission.lost':
      actor.send({ type: 'admission.failed' })
      break
    case 'commit.lost': {
      // The feed's word of the write comes before its failure (as the memory store and SQLite
      // tell it); a closed seam no longer follows its store.
      const by = writer()
      state.stored = offered(actor, by)
      if (!state.closed) hearSettled(state.stored, 'answered')
      const failed = { type: 'commit.failed' as const, lasting: false }
      if (by === 'presentation') toPresentation(failed)
      else if (isWriting(actor.getSnapshot())) actor.send(failed)
      break
    }
    case 'commit.unheld':
      actor.send({ type: 'commit.failed', lasting: true })
      break
    case 'commit.failed': {
      // A failure that may pass: one that cannot is the machines' own tests' (ask-outcomes, presentation).
      const event = { type: 'commit.failed' as const, lasting: false }
      if (writer() === 'ask') actor.send(event)
      else toPresentation(event)
      break
    }
    case 'provider.answered':
    case 'provider.failed':
      toPresentation(step)
      break
    case 'votes.read':
      toPresentation({ type: 'votes.read', given: state.votes.map(responder) })
      break
    case 'vote.counted': {
      const { given, responder: by } = writing!.context
      state.votes.push(by!.id)
      toPresentation({ type: 'vote.counted', given: [...given, by!] })
      break
    }
    case 'vote.already':
      toPresentation({ type: 'vote.already', given: writing!.context.given })
      break
    case 'pause.elapsed':
      state.now += retryBound(writing!.context.refusals)
      fireTimer(before!, afterEvents.pause)
      break
    case 'wait.elapsed':
      state.now += WAIT_MS
      fireTimer(actor, afterEvents.wait)
      break
    case 'grace.elapsed':
      state.now += GRACE_MS
      fireTimer(actor, afterEvents.grace)
      break
    case 'retry.elapsed': {
      if (actor.getSnapshot().matches({ committing: 'waiting' })) {
        state.now += retryBound(actor.getSnapshot().context.commitAttempts)
        fireTimer(actor, afterEvents.commitRetry)
        break
      }
      const child = before!.getSnapshot() as PresentationSnapshot
      state.now += retryBound(child.context.attempts)
      fireTimer(before!, afterEvents.retry)
      break
    }
    case 'ask.deadline': {
      state.now = DEADLINE_MS
      state.deadlinePassed = true
      actor.send({ type: 'ask.deadline', final: true })
      // Another seam sharing the store sweeps the same deadline at the same instant, just after
      // this ask's own timer: the store ends the ask, and the seam (unless closed, when it no
      // longer follows its store) hears it as a settlement.
      if (state.stored === undefined && !state.unheld) {
        const timeout = timeoutOutcome({ deadline: DEADLINE_MS, startedAt: 0 })
        state.stored = timeout
        if (!state.closed && actor.getSnapshot().status === 'active') hearSettled(timeout)
      }
      break
    }
    default:
      actor.send(step)
  }
  const after = actor.getSnapshot().children.presentation
  const left = before?.getSnapshot() as PresentationSnapshot | undefined
  // A read of the votes answered by nobody: the presentation left `counting` another way.
  if (writing?.matches('counting') && step.type !== 'votes.read' && !left?.matches('counting')) {
    state.orphans.push({ kind: 'votes', outcome: undefined })
  }
  if (before !== undefined && before !== after && left?.status === 'stopped') {
    // Stopped by its ask before it reached a final state of its own.
    drop()
    if (writing?.matches({ committing: 'writing' })) {
      const kind = writing.context.voting ? 'vote' : 'settle'
      state.orphans.push({ kind, outcome: writing.context.proposal! })
    }
  }
}

/** Whether the ask's own write of its ending is in flight. */
const isWriting = (ask: AskSnapshot) =>
  ask.matches({ committing: 'writing' }) || ask.matches({ committing: 'lastWrite' })

function offered(actor: ModelActor, writer: 'ask' | 'presentation'): AskOutcome {
  const snapshot = actor.getSnapshot()
  if (writer === 'ask') return snapshot.context.proposal!.outcome
  const { context } = snapshot.children.presentation!.getSnapshot() as PresentationSnapshot
  // The last approval settles the ask with every approver (DESIGN §12).
  return context.voting
    ? { ...context.proposal!, by: [...context.given, context.responder!] }
    : context.proposal!
}
