import { getEventListeners } from 'node:events'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TestModel } from 'xstate/graph'
import type { SnapshotFrom } from 'xstate'
import { askMachine } from '../../src/machines/index.js'
import type { AskEvent, AskInput, AskOutcome } from '../../src/machines/index.js'
import { UserQuestionError, createUserQuestions, validateAnswer } from '../../src/protocol/index.js'
import { thrownBy } from '../support/controllable-provider.js'
import type {
  AskStore,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  ProviderRequest,
  StoredOutcome,
  UserQuestions,
} from '../../src/protocol/index.js'

/**
 * Paths generated from askMachine drive the real seam (createUserQuestions)
 * through its public API, on a real store, with a provider the test controls,
 * a second seam sharing the store (the fleet: another console, another
 * process) and fake timers. The store is wrapped so the seam's own commits
 * wait until the path says how they end (committed, lost to a settlement
 * written first elsewhere, or failed), which makes `committing` observable.
 * After every step the test checks what the caller and the providers observe
 * against the state the machine says the ask is in.
 *
 * Exported as a suite over a store factory, so every store runs the same paths.
 */

type AskSnapshot = SnapshotFrom<typeof askMachine>
type ModelEvent = AskEvent | { type: string; output?: unknown; error?: unknown }

const questions: AskUserQuestionItem[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
  { id: 'note', question: 'Anything else?' },
]
const goodAnswer: AskUserQuestionAnswer = {
  answers: [
    { id: 'db', selected: ['SQLite'] },
    { id: 'note', selected: [], custom: 'ship it' },
  ],
}
const answeredElsewhere: AskOutcome = {
  status: 'answered',
  answer: {
    answers: [
      { id: 'db', selected: ['Postgres'] },
      { id: 'note', selected: [] },
    ],
  },
}
const cancelledElsewhere: AskOutcome = {
  status: 'rejected',
  error: { code: 'ASK_CANCELLED', message: 'dismissed in another console' },
}
const badReply = { answers: [{ id: 'db', selected: ['MySQL'] }] }
/** The errors the seam makes of a failing provider and of `badReply`, as the model's events carry them. */
const providerFailure = new UserQuestionError(
  'The question provider failed: boom',
  'PROVIDER_FAILED',
)
const badAnswer = thrownBy(() => validateAnswer(questions, badReply), 'BAD_ANSWER')
const WAIT_MS = 1_000
const GRACE_MS = 2_000
/**
 * A late deadline fires only once no wait or grace is armed (later than every wait and grace
 * a path takes, together); an early one before any could. Neither falls on a durable seam's
 * lease renewal (every HEARTBEAT_MS from the start), whose sweep would otherwise end the ask
 * at the same instant as its deadline, before it. Kept short of hours of fake time: a
 * durable store's timers fire all along the way, each with real I/O.
 */
const LATE_DEADLINE_MS = 100_001
const EARLY_DEADLINE_MS = 500

/** The machine the paths come from: the store's answer to a commit is an event the path sends. */
const modelMachine = askMachine.provide({ actions: { offerCommit: () => undefined } })
const pendingNode = askMachine.root.states.pending!
const presentId = pendingNode.states.presenting!.invoke[0]!.id
const afterEvent = (delay: string) => {
  for (const node of Object.values(pendingNode.states.waitingForProvider!.states)) {
    for (const type of node.transitions.keys())
      if (type.startsWith(`xstate.after.${delay}.`)) return type
  }
  throw new Error(`no after event for ${delay}`)
}
const events = {
  providerWait: afterEvent('providerWait'),
  providerGrace: afterEvent('providerGrace'),
  presentDone: `xstate.done.actor.${presentId}`,
  presentError: `xstate.error.actor.${presentId}`,
}

interface Scenario {
  providerAtStart: boolean
  deadline: 'none' | 'late' | 'early'
  waitForProvider: boolean
  grace: boolean
}

const scenarios: Scenario[] = []
for (const providerAtStart of [true, false])
  for (const deadline of ['none', 'late', 'early'] as const)
    for (const waitForProvider of [true, false])
      for (const grace of [true, false])
        scenarios.push({ providerAtStart, deadline, waitForProvider, grace })

const deadlineMs = (scenario: Scenario) =>
  scenario.deadline === 'early'
    ? EARLY_DEADLINE_MS
    : scenario.deadline === 'late'
      ? LATE_DEADLINE_MS
      : undefined

function modelInput(scenario: Scenario): AskInput {
  return {
    askId: 'model',
    questions,
    startedAt: 0,
    waitForProviderMs: scenario.waitForProvider ? WAIT_MS : 0,
    providerGraceMs: scenario.grace ? GRACE_MS : 0,
    providerHere: scenario.providerAtStart,
    ...(scenario.deadline === 'none' ? {} : { deadline: deadlineMs(scenario)! }),
  }
}

const eventsFor =
  (scenario: Scenario) =>
  (snapshot: AskSnapshot): ModelEvent[] => {
    if (snapshot.status !== 'active') return []
    const { context } = snapshot
    if (snapshot.matches('committing')) {
      const offered = context.proposal!.outcome
      return [
        { type: 'commit.done' as const, outcome: offered, won: true },
        // Another seam sharing the store sweeps the same deadline at the same instant, so a
        // timeout is never beaten by a later settlement there.
        ...(offered.status === 'answered' ||
        (offered.status === 'rejected' && offered.error.code === 'ASK_TIMEOUT')
          ? []
          : [{ type: 'commit.done' as const, outcome: answeredElsewhere, won: false }]),
        { type: 'commit.failed' },
      ]
    }
    const waiting = snapshot.matches({ pending: 'waitingForProvider' })
    const waitOrGraceMayFire = scenario.deadline !== 'early'
    const deadlineMayFire = scenario.deadline === 'early' || !waiting
    const list: ModelEvent[] = [
      { type: 'ask.aborted', reason: 'caller gave up' },
      { type: 'seam.closed' },
      { type: 'ask.settled', outcome: answeredElsewhere },
      { type: 'ask.settled', outcome: cancelledElsewhere },
      { type: 'providers.elsewhere', active: !context.providerElsewhere },
    ]
    if (!context.providerHere) list.push({ type: 'provider.available' })
    if (waitOrGraceMayFire && snapshot.matches({ pending: { waitingForProvider: 'first' } })) {
      list.push({ type: events.providerWait })
    }
    if (waitOrGraceMayFire && snapshot.matches({ pending: { waitingForProvider: 'handOver' } })) {
      list.push({ type: events.providerGrace })
    }
    if (snapshot.matches({ pending: 'presenting' })) {
      list.push(
        { type: 'provider.disposed' },
        { type: events.presentDone, output: goodAnswer },
        { type: events.presentError, error: new UserQuestionError('dismissed', 'ASK_CANCELLED') },
        { type: events.presentError, error: providerFailure },
        { type: events.presentError, error: badAnswer },
      )
    }
    if (deadlineMayFire && context.deadline !== undefined) list.push({ type: 'ask.deadline' })
    return list
  }

const serializeState = (snapshot: AskSnapshot) =>
  JSON.stringify([
    snapshot.value,
    snapshot.context.providerHere,
    snapshot.context.providerElsewhere,
    snapshot.context.proposal?.outcome.status === 'rejected'
      ? [
          snapshot.context.proposal.outcome.error.code,
          snapshot.context.proposal.outcome.error.details?.reason,
        ]
      : snapshot.context.proposal?.outcome.status,
    snapshot.output?.status,
    snapshot.output?.status === 'rejected' ? snapshot.output.error.code : '',
  ])
const serializeEvent = (event: ModelEvent) =>
  JSON.stringify([
    event.type,
    (event as { error?: UserQuestionError }).error?.code,
    (event as { active?: boolean }).active,
    (event as { outcome?: AskOutcome }).outcome?.status,
    (event as { won?: boolean }).won,
  ])

/**
 * The store as the other seam sees it: each change reaches it one turn of the event loop
 * after the commit, as it reaches another process. The model has the seam's own deadline
 * propose the timeout (see `eventsFor`); with a durable store's asynchronous admission, the
 * other seam would otherwise hear of the ask, and arm its sweep for the same deadline,
 * before the seam under test has armed its own, and its sweep would fire first.
 */
function heardLater(inner: AskStore): AskStore {
  const store: AskStore = Object.create(inner) as AskStore
  store.watch = (listener) => inner.watch((change) => setImmediate(() => listener(change)))
  return store
}

/** A store whose settlements from the seam under test wait until the path decides them. */
function holdingStore(inner: AskStore, passThrough: () => boolean) {
  const held: { run: () => void; fail: (error: unknown) => void }[] = []
  const store: AskStore = Object.create(inner) as AskStore
  store.settle = (askId, outcome, settledAt) =>
    passThrough()
      ? inner.settle(askId, outcome, settledAt)
      : new Promise((resolve, reject) => {
          held.push({
            run: () => void inner.settle(askId, outcome, settledAt).then(resolve, reject),
            fail: reject,
          })
        })
  return { store, held }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(0)
}

/** The implementation under test, and everything the caller and the providers observe. */
class World {
  inner: AskStore
  held: ReturnType<typeof holdingStore>['held']
  seam: UserQuestions
  console: UserQuestions
  caller = new AbortController()
  requests: {
    request: ProviderRequest
    resolve: (value: unknown) => void
    reject: (e: unknown) => void
  }[] = []
  dispose: (() => void) | undefined
  disposeElsewhere: (() => void) | undefined
  settled:
    | { status: 'resolved'; value: AskUserQuestionAnswer }
    | { status: 'rejected'; error: unknown }
    | undefined
  askId: string | undefined

  constructor(
    readonly scenario: Scenario,
    makeStore: () => AskStore,
  ) {
    this.inner = makeStore()
    const holding = holdingStore(this.inner, () => this.releasing)
    this.held = holding.held
    this.seam = createUserQuestions({
      store: holding.store,
      ...(scenario.deadline === 'none' ? {} : { timeoutMs: deadlineMs(scenario)! }),
      waitForProviderMs: scenario.waitForProvider ? WAIT_MS : 0,
      providerGraceMs: scenario.grace ? GRACE_MS : 0,
    })
    this.console = createUserQuestions({ store: heardLater(this.inner) })
    if (scenario.providerAtStart) this.register()
  }

  register() {
    this.dispose = this.seam.registerProvider({
      ask: (request) =>
        new Promise((resolve, reject) => {
          this.requests.push({ request, resolve: resolve as (value: unknown) => void, reject })
        }),
    })
  }

  async start() {
    await flush()
    expect(vi.getTimerCount()).toBe(this.idleTimers())
    // Without a provider anywhere and no wait, a keyless ask fails before admission (DESIGN §3
    // order) and no machine runs; a keyed one is admitted first, so its machine decides.
    const keyed = !this.scenario.providerAtStart && !this.scenario.waitForProvider
    void this.seam
      .ask({ questions, signal: this.caller.signal, ...(keyed ? { key: 'k' } : {}) })
      .then(
        (value) => (this.settled = { status: 'resolved', value }),
        (error: unknown) => (this.settled = { status: 'rejected', error }),
      )
    await flush()
    this.askId = this.seam.pending()[0]?.askId
  }

  /** Lets every held and later commit through: the path is over. */
  release() {
    this.releasing = true
    while (this.held.length > 0) this.held.shift()!.run()
  }

  releasing = false
  seamClosed = false

  /**
   * The timers that run with no ask in flight: none on a process-local store; on a durable
   * one, each open seam's lease renewal and the store's change-feed poll (the console
   * watches it throughout).
   */
  idleTimers() {
    return this.inner.processLocal === true ? 0 : (this.seamClosed ? 0 : 1) + 1 + 1
  }

  get current() {
    return this.requests.at(-1)
  }

  async perform(event: ModelEvent) {
    const type = event.type
    const askId = this.askId!
    if (type === 'ask.aborted') this.caller.abort('caller gave up')
    else if (type === 'seam.closed') {
      this.seamClosed = true
      void this.seam.close()
    } else if (type === 'provider.available') this.register()
    else if (type === 'provider.disposed') this.dispose?.()
    else if (type === 'providers.elsewhere') {
      if ((event as { active: boolean }).active) {
        this.disposeElsewhere = this.console.registerProvider({ ask: () => new Promise(() => {}) })
      } else this.disposeElsewhere?.()
    } else if (type === 'ask.settled') {
      const outcome = (event as { outcome: StoredOutcome }).outcome
      await this.inner.settle(askId, outcome, Date.now())
    } else if (type === events.presentDone) this.current!.resolve(goodAnswer)
    else if (type === events.presentError) {
      const code = (event as { error: UserQuestionError }).error.code
      if (code === 'ASK_CANCELLED')
        this.current!.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
      else if (code === 'PROVIDER_FAILED') this.current!.reject(new Error('boom'))
      else this.current!.resolve(badReply)
    } else if (type === 'commit.done') {
      const { won, outcome } = event as { won: boolean; outcome: StoredOutcome }
      if (!won) await this.inner.settle(askId, outcome, Date.now())
      this.held.shift()!.run()
    } else if (type === 'commit.failed') this.held.shift()!.fail(new Error('disk I/O error'))
    else if (type === events.providerWait) await vi.advanceTimersByTimeAsync(WAIT_MS)
    else if (type === events.providerGrace) await vi.advanceTimersByTimeAsync(GRACE_MS)
    else if (type === 'ask.deadline')
      await vi.advanceTimersByTimeAsync(deadlineMs(this.scenario)! - Date.now())
    else throw new Error(`no implementation step for ${type}`)
    await flush()
  }

  /** What the caller and the providers must observe in `snapshot`. */
  check(snapshot: AskSnapshot, presentations: number, presentedBefore: boolean) {
    expect(this.requests.length).toBe(presentations)
    for (const { request } of this.requests) {
      expect(request.askId).toBe(this.askId)
      expect(request.questions).toEqual(questions)
    }
    for (const { request } of this.requests.slice(0, -1)) {
      expect(request.signal.aborted).toBe(true)
      expect((request.signal.reason as UserQuestionError).details?.reason).toBe('provider-disposed')
    }
    const listeners = getEventListeners(this.caller.signal, 'abort').length
    if (snapshot.status === 'active') {
      expect(this.settled).toBeUndefined()
      const listed = this.seam.pending()
      expect(listed.map((entry) => entry.askId)).toEqual([this.askId])
      const waiting = snapshot.matches({ pending: 'waitingForProvider' })
      expect(listed[0]!.state).toBe(waiting ? 'waiting-for-provider' : 'presenting')
      expect(listed[0]!.deadline).toBe(deadlineMs(this.scenario))
      if (snapshot.matches({ pending: 'presenting' })) {
        expect(this.current!.request.signal.aborted).toBe(false)
      }
      // An abort consumes the one-shot listener; otherwise exactly one listens.
      expect(listeners).toBe(this.caller.signal.aborted ? 0 : 1)
      return
    }
    const output = snapshot.output!
    expect(this.seam.pending()).toEqual([])
    expect(listeners).toBe(0)
    if (output.status === 'rejected' && output.error.code === 'STORE_FAILED') {
      // Nothing was written: the ask stays pending in the store, and the other seam still shows
      // it, unless that seam's own sweep ended it at its deadline.
      const elsewhere = this.console.pending().map((entry) => entry.askId)
      expect(elsewhere).toEqual(
        Date.now() >= (deadlineMs(this.scenario) ?? Infinity) ? [] : [this.askId],
      )
    } else {
      expect(this.console.pending()).toEqual([])
      // Nothing of the ask is left armed (deadline, wait, grace, a sweep for it).
      expect(vi.getTimerCount()).toBe(this.idleTimers())
    }
    const request = this.current?.request
    // The provider settled this presentation itself exactly when its settlement is the proposal.
    const providerSettled = snapshot.context.proposal?.byProvider === true
    if (presentedBefore) expect(request!.signal.aborted).toBe(!providerSettled)
    if (output.status === 'answered') {
      expect(this.settled).toEqual({ status: 'resolved', value: output.answer })
      if (presentedBefore && !providerSettled) {
        // Taken down by the answer committed elsewhere, or already by the local ending that lost to it.
        const reason = request!.signal.reason as UserQuestionError
        expect(reason).toBeInstanceOf(UserQuestionError)
        if (snapshot.context.proposal === undefined) {
          expect(reason.details?.reason).toBe('settled-elsewhere')
        }
      }
      return
    }
    expect(this.settled?.status).toBe('rejected')
    const error = (this.settled as { error: UserQuestionError }).error
    expect(error).toBeInstanceOf(UserQuestionError)
    expect(error.code).toBe(output.error.code)
    expect(error.message).toBe(output.error.message)
    if (presentedBefore && !providerSettled) {
      const proposal = snapshot.context.proposal?.outcome
      if (output.error.code === 'STORE_FAILED' && proposal?.status === 'rejected') {
        // Taken down by the local ending, whose commit then failed.
        expect((request!.signal.reason as UserQuestionError).code).toBe(proposal.error.code)
      } else {
        expect(request!.signal.reason).toBe(error)
      }
    }
  }
}

function leafIds(snapshot: AskSnapshot): string[] {
  return snapshot._nodes
    .filter((node) => node.type === 'atomic' || node.type === 'final')
    .map((node) => node.id)
}

/** The askMachine model suite on the store `makeStore` creates (a fresh one per path). */
export function askModelSuite(storeName: string, makeStore: () => AskStore): void {
  const coverage = { paths: 0, states: new Set<string>(), transitions: new Set<string>() }

  describe(`askMachine paths drive the seam (${storeName})`, () => {
    beforeEach(() => {
      vi.useFakeTimers({
        toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
      })
      vi.setSystemTime(0)
    })
    afterEach(() => {
      vi.useRealTimers()
    })

    for (const scenario of scenarios) {
      const model = new TestModel(modelMachine, {
        input: modelInput(scenario),
        events: eventsFor(scenario) as never,
        serializeState: serializeState as never,
        serializeEvent: serializeEvent as never,
      })
      const paths = model.getShortestPaths()
      const name = Object.entries(scenario)
        .map(([key, on]) => (typeof on === 'string' ? `${key}:${on}` : `${on ? '+' : '-'}${key}`))
        .join(' ')
      it(`${name}: ${paths.length} paths`, async () => {
        expect(paths.length).toBeGreaterThan(0)
        for (const path of paths) {
          vi.setSystemTime(0)
          const world = new World(scenario, makeStore)
          await world.start()
          let presentations = path.steps[0]!.state.matches({ pending: 'presenting' }) ? 1 : 0
          let previous = path.steps[0]!.state
          let presentedBefore = presentations > 0
          let context: string
          world.check(previous, presentations, false)
          for (const [index, step] of path.steps.slice(1).entries()) {
            context = `step ${index + 1} of: ${path.steps
              .slice(1)
              .map((each) => serializeEvent(each.event as ModelEvent))
              .join(' → ')}`
            await world.perform(step.event as ModelEvent)
            const wasPresenting = previous.matches({ pending: 'presenting' })
            if (!wasPresenting && step.state.matches({ pending: 'presenting' })) {
              presentations++
              presentedBefore = true
            }
            if (wasPresenting && !step.state.matches({ pending: 'presenting' })) {
              // A hand-over ends the presentation; a commit keeps it until the outcome is known.
              presentedBefore = step.state.matches('committing') || step.state.status === 'done'
            }
            try {
              world.check(step.state, presentations, presentedBefore)
            } catch (error: unknown) {
              throw new Error(`${context}: ${String(error)}`, { cause: error })
            }
            for (const node of previous._nodes) {
              if (node.transitions.has(step.event.type))
                coverage.transitions.add(`${node.id} ${step.event.type}`)
            }
            previous = step.state
          }
          for (const step of path.steps)
            for (const id of leafIds(step.state)) coverage.states.add(id)
          coverage.paths++
          world.release()
          await world.seam.close()
          await world.console.close()
          await world.inner.close()
        }
      })
    }

    it('reaches every observable state and takes every event transition of askMachine', () => {
      const all = new Set<string>()
      const visit = (node: typeof askMachine.root) => {
        // A state left at once by an unguarded eventless transition is never observable.
        const transient =
          node.always !== undefined &&
          node.always.some((transition) => transition.guard === undefined)
        if ((node.type === 'atomic' || node.type === 'final') && !transient) all.add(node.id)
        for (const child of Object.values(node.states)) visit(child)
      }
      visit(askMachine.root)
      const transitions = new Set<string>()
      const collect = (node: typeof askMachine.root) => {
        for (const type of node.transitions.keys()) transitions.add(`${node.id} ${type}`)
        for (const child of Object.values(node.states)) collect(child)
      }
      collect(askMachine.root)
      const missing = [...all].filter((id) => !coverage.states.has(id))
      const untaken = [...transitions].filter((key) => !coverage.transitions.has(key))
      console.info(
        `askMachine model (${storeName}): ${coverage.paths} paths, ${all.size - missing.length}/${all.size} states, ` +
          `${transitions.size - untaken.length}/${transitions.size} event transitions`,
      )
      expect(missing).toEqual([])
      expect(untaken).toEqual([])
    })
  })
}
