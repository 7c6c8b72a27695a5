import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TestModel } from 'xstate/graph'
import type { SnapshotFrom } from 'xstate'
import { askMachine } from '../../src/machines/index.js'
import type { AskEvent, AskInput } from '../../src/machines/index.js'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  ProviderRequest,
  UserQuestions,
} from '../../src/protocol/index.js'

/**
 * Paths generated from askMachine drive the real seam (createUserQuestions)
 * through its public API, with a provider the test controls and fake timers.
 * After every step the test checks what the caller and the provider observe
 * against the state the machine says the ask is in.
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
const WAIT_MS = 1_000
const GRACE_MS = 2_000
/**
 * The model treats timers as independent events; real timers fire in time
 * order. Two deadlines make every generated order realisable: a late one
 * (fires only once no wait or grace is armed) and an early one (fires before
 * any wait or grace could).
 */
const LATE_DEADLINE_MS = 1_000_000
const EARLY_DEADLINE_MS = 500

const pendingNode = askMachine.root.states.pending!
const presenting = pendingNode.states.presenting!
const invokeId = presenting.invoke[0]!.id
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
  deadline: 'ask.deadline',
  done: `xstate.done.actor.${invokeId}`,
  error: `xstate.error.actor.${invokeId}`,
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
    ...(scenario.deadline === 'none' ? {} : { deadline: deadlineMs(scenario)! }),
    ...(scenario.providerAtStart ? { provider: { ask: () => new Promise(() => {}) } } : {}),
  }
}

const eventsFor =
  (scenario: Scenario) =>
  (snapshot: AskSnapshot): ModelEvent[] => {
    if (snapshot.status !== 'active') return []
    const waiting = snapshot.matches({ pending: 'waitingForProvider' })
    const waitOrGraceMayFire = scenario.deadline !== 'early'
    const deadlineMayFire = scenario.deadline === 'early' || !waiting
    const list: ModelEvent[] = [
      { type: 'ask.aborted', reason: 'caller gave up' },
      { type: 'seam.closed' },
    ]
    if (snapshot.matches({ pending: 'waitingForProvider' })) {
      list.push({ type: 'provider.available', provider: { ask: () => new Promise(() => {}) } })
    }
    if (waitOrGraceMayFire && snapshot.matches({ pending: { waitingForProvider: 'first' } })) {
      list.push({ type: events.providerWait })
    }
    if (waitOrGraceMayFire && snapshot.matches({ pending: { waitingForProvider: 'handOver' } })) {
      list.push({ type: events.providerGrace })
    }
    if (snapshot.matches({ pending: 'presenting' })) {
      list.push(
        { type: 'provider.disposed' },
        { type: events.done, output: goodAnswer },
        { type: events.error, error: new UserQuestionError('dismissed', 'ASK_CANCELLED') },
        { type: events.error, error: new UserQuestionError('boom', 'PROVIDER_FAILED') },
        { type: events.error, error: new UserQuestionError('bad', 'BAD_ANSWER') },
      )
    }
    if (deadlineMayFire && snapshot.context.deadline !== undefined)
      list.push({ type: events.deadline })
    return list
  }

const serializeState = (snapshot: AskSnapshot) =>
  JSON.stringify([
    snapshot.value,
    snapshot.output?.status,
    snapshot.output?.status === 'rejected' ? snapshot.output.error.code : '',
  ])
const serializeEvent = (event: ModelEvent) =>
  JSON.stringify([event.type, (event as { error?: UserQuestionError }).error?.code])

/** The implementation under test, and everything the caller and the providers observe. */
class World {
  seam: UserQuestions
  caller = new AbortController()
  listeners = 0
  requests: {
    request: ProviderRequest
    resolve: (value: unknown) => void
    reject: (error: unknown) => void
  }[] = []
  dispose: (() => void) | undefined
  settled:
    | { status: 'resolved'; value: AskUserQuestionAnswer }
    | { status: 'rejected'; error: unknown }
    | undefined
  askId: string | undefined

  constructor(readonly scenario: Scenario) {
    this.seam = createUserQuestions({
      ...(scenario.deadline === 'none' ? {} : { timeoutMs: deadlineMs(scenario)! }),
      waitForProviderMs: scenario.waitForProvider ? WAIT_MS : 0,
      providerGraceMs: scenario.grace ? GRACE_MS : 0,
    })
    const signal = this.caller.signal
    const add = signal.addEventListener.bind(signal)
    const remove = signal.removeEventListener.bind(signal)
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      this.listeners++
      add(...args)
    }) as typeof add
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      this.listeners--
      remove(...args)
    }) as typeof remove
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

  start() {
    this.seam.ask({ questions, signal: this.caller.signal }).then(
      (value) => (this.settled = { status: 'resolved', value }),
      (error: unknown) => (this.settled = { status: 'rejected', error }),
    )
    this.askId = this.seam.pending()[0]?.askId ?? this.requests[0]?.request.askId
  }

  get current() {
    return this.requests.at(-1)
  }

  async perform(event: ModelEvent) {
    const type = event.type
    if (type === 'ask.aborted') this.caller.abort('caller gave up')
    else if (type === 'seam.closed') await this.seam.close()
    else if (type === 'provider.available') this.register()
    else if (type === 'provider.disposed') this.dispose?.()
    else if (type === events.done) this.current!.resolve(goodAnswer)
    else if (type === events.error) {
      const code = (event as { error: UserQuestionError }).error.code
      if (code === 'ASK_CANCELLED')
        this.current!.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
      else if (code === 'PROVIDER_FAILED') this.current!.reject(new Error('boom'))
      else this.current!.resolve({ answers: [{ id: 'db', selected: ['MySQL'] }] })
    } else if (type === events.providerWait) await vi.advanceTimersByTimeAsync(WAIT_MS)
    else if (type === events.providerGrace) await vi.advanceTimersByTimeAsync(GRACE_MS)
    else if (type === events.deadline)
      await vi.advanceTimersByTimeAsync(deadlineMs(this.scenario)! - Date.now())
    else throw new Error(`no implementation step for ${type}`)
    // Let promise settlements travel through the provider, the actor and the seam.
    for (let i = 0; i < 20; i++) await Promise.resolve()
  }

  /** What the caller and the providers must observe in `snapshot`. */
  check(snapshot: AskSnapshot, presentations: number, cameFromPresenting: boolean) {
    expect(this.requests.length).toBe(presentations)
    for (const { request } of this.requests) {
      expect(request.askId).toBe(this.askId)
      expect(request.questions).toEqual(questions)
    }
    const earlier = this.requests.slice(0, -1)
    for (const { request } of earlier) {
      expect(request.signal.aborted).toBe(true)
      expect((request.signal.reason as UserQuestionError).details?.reason).toBe('provider-disposed')
    }
    if (snapshot.status === 'active') {
      expect(this.settled).toBeUndefined()
      const listed = this.seam.pending()
      expect(listed).toHaveLength(1)
      expect(listed[0]!.askId).toBe(this.askId)
      const isPresenting = snapshot.matches({ pending: 'presenting' })
      expect(listed[0]!.state).toBe(isPresenting ? 'presenting' : 'waiting-for-provider')
      expect(listed[0]!.deadline).toBe(deadlineMs(this.scenario))
      if (isPresenting) expect(this.current!.request.signal.aborted).toBe(false)
      expect(this.listeners).toBe(1)
      if (snapshot.context.deadline !== undefined) expect(vi.getTimerCount()).toBeGreaterThan(0)
      return
    }
    const output = snapshot.output!
    expect(this.seam.pending()).toEqual([])
    expect(vi.getTimerCount()).toBe(0)
    expect(this.listeners).toBe(0)
    if (output.status === 'answered') {
      expect(this.settled).toEqual({ status: 'resolved', value: output.answer })
      expect(this.current!.request.signal.aborted).toBe(false)
      return
    }
    expect(this.settled?.status).toBe('rejected')
    const error = (this.settled as { error: UserQuestionError }).error
    expect(error).toBeInstanceOf(UserQuestionError)
    expect(error.code).toBe(output.error.code)
    const providerEnded =
      snapshot.matches('answered') || snapshot.matches('cancelled') || snapshot.matches('failed')
    if (cameFromPresenting && !providerEnded) {
      expect(this.current!.request.signal.aborted).toBe(true)
      expect(this.current!.request.signal.reason).toBe(error)
    } else if (this.current !== undefined && cameFromPresenting) {
      expect(this.current.request.signal.aborted).toBe(false)
    }
  }
}

const coverage = { paths: 0, states: new Set<string>(), transitions: new Set<string>() }

function leafIds(snapshot: AskSnapshot): string[] {
  return snapshot._nodes
    .filter((node) => node.type === 'atomic' || node.type === 'final')
    .map((node) => node.id)
}

describe('askMachine paths drive the seam', () => {
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
    const model = new TestModel(askMachine, {
      input: modelInput(scenario),
      events: eventsFor(scenario) as never,
      serializeState: serializeState as never,
      serializeEvent: serializeEvent as never,
    })
    const paths = [...model.getShortestPaths(), ...model.getSimplePaths()]
    const name = Object.entries(scenario)
      .map(([key, on]) => (typeof on === 'string' ? `${key}:${on}` : `${on ? '+' : '-'}${key}`))
      .join(' ')
    it(`${name}: ${paths.length} paths`, async () => {
      expect(paths.length).toBeGreaterThan(0)
      for (const path of paths) {
        vi.setSystemTime(0)
        const world = new World(scenario)
        world.start()
        await world.perform({ type: 'noop.flush' }).catch(() => undefined)
        let presentations = path.steps[0]!.state.matches({ pending: 'presenting' }) ? 1 : 0
        let previous = path.steps[0]!.state
        world.check(previous, presentations, false)
        for (const step of path.steps.slice(1)) {
          await world.perform(step.event as ModelEvent)
          const wasPresenting = previous.matches({ pending: 'presenting' })
          if (!wasPresenting && step.state.matches({ pending: 'presenting' })) presentations++
          world.check(step.state, presentations, wasPresenting)
          for (const node of previous._nodes) {
            if (node.transitions.has(step.event.type))
              coverage.transitions.add(`${node.id} ${step.event.type}`)
          }
          previous = step.state
        }
        for (const step of path.steps) for (const id of leafIds(step.state)) coverage.states.add(id)
        coverage.paths++
        await world.seam.close()
      }
    })
  }

  it('reaches every observable state of askMachine', () => {
    const all = new Set<string>()
    const visit = (node: typeof askMachine.root) => {
      // A state left at once by eventless transitions is never observable.
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
      `askMachine model: ${coverage.paths} paths, ${all.size - missing.length}/${all.size} states, ` +
        `${transitions.size - untaken.length}/${transitions.size} event transitions`,
    )
    expect(missing).toEqual([])
    expect(untaken).toEqual([])
  })
})
