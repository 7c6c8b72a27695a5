import { createActor } from 'xstate'
import type { InspectionEvent } from 'xstate'
import { seamMachine } from '../machines/index.js'
import { checkCaller } from './agents.js'
import { createAsks } from './asks.js'
import { createFleet, stopFleet, tellFleet } from './fleet.js'
import { createFollower } from './follower.js'
import { newId } from './ids.js'
import { createPresenter } from './presenter.js'
import { registerSeamHooks } from './seam-hooks.js'
import type { InspectionObserver, UserQuestions, UserQuestionsOptions } from './seam-api.js'
import { createMemoryStore } from './store/memory.js'
import { readHistoryQuery } from './store/history.js'
import { guardTelemetry } from './telemetry.js'
import {
  MAX_TIMEOUT_MS,
  UserQuestionError,
  checkNotAborted,
  handedOverOutcome,
  isDuration,
  isHandOver,
  outcomeError,
  seamFaultOutcome,
  validateRequest,
} from '../vocabulary/index.js'
import type { AskUserQuestionAnswer, UserQuestionProvider } from '../vocabulary/index.js'

export { dropSeamForTesting } from './seam-hooks.js'

/**
 * Creates the question seam: a thin adapter over `seamMachine` (the provider
 * slot), `fleetMachine` (its part in the fleet sharing the store), one
 * `askMachine` actor per ask, and one `presentationMachine` per ask its
 * provider shows (DESIGN §6, §10). It turns each ask's output into a resolved
 * answer or a rejected `UserQuestionError`.
 *
 * @example
 * ```ts
 * const seam = createUserQuestions({ timeoutMs: 60_000 })
 * seam.registerProvider({ ask: async ({ questions }) => ({ answers: questions.map(({ id }) => ({ id, selected: [] })) }) })
 * const { answers } = await seam.ask({ questions: [{ id: 'go', question: 'Deploy now?', options: [{ label: 'Yes' }, { label: 'No' }] }] })
 * ```
 */
export function createUserQuestions(options: UserQuestionsOptions = {}): UserQuestions {
  const { inspect, telemetry, store, durable } = readOptions(options)
  const seamId = newId()
  /** The registered provider, beside the slot that holds its registration. */
  let registered: UserQuestionProvider | undefined
  let registrations = 0
  let closing: Promise<void> | undefined
  let markReady!: () => void
  const ready = new Promise<void>((resolve) => (markReady = resolve))

  const slot = createActor(seamMachine, inspect === undefined ? {} : { inspect })
  const isClosed = () => slot.getSnapshot().matches('closed')
  const fleet = createFleet({ store, seamId, durable, inspect, resync: () => follower.resync() })
  /** What the fleet knows of other seams, read from its machine. */
  const fleetView = () => {
    const { known, providerElsewhere } = fleet.getSnapshot().context
    return { fleetKnown: known, providerElsewhere }
  }

  const presenter = createPresenter({
    store,
    provider: () => registered,
    errorFor: (askId, error) => asks.errorFor(askId, error),
    agentOf: (askId) => asks.agentOf(askId),
    traceContextOf: (askId) => asks.traceContextOf(askId),
    onCause: (askId, kind, error) => asks.noteCause(askId, kind, error),
    // The ask settled: it ends here now, not when the feed brings it (see `settledHere`). An ask
    // overdue when shown needs nothing here: the follower armed the sweep at its deadline.
    onEnded(askId, output) {
      if (output.verdict !== 'takenDown') follower.settledHere(askId, output.outcome)
      else if (isHandOver(output.ending.error)) {
        // Withdrawn as its provider went: a next one registered meanwhile is shown the ask now.
        follower.showAll()
      }
    },
    ...(inspect && { inspect }),
    ...(telemetry && { telemetry }),
  })
  const asks = createAsks({
    store,
    seamId,
    presentation: presenter.machine,
    ready: () => ready,
    stopped: isClosed,
    timeoutMs: options.timeoutMs,
    takeDown: (askId, reason) => presenter.takeDown(askId, reason),
    recorded: (askId) => presenter.recorded(askId),
    unwritten: (ending) => tellFleet(fleet, { type: 'ending.unwritten', ...ending }),
    defaults: () => ({
      waitForProviderMs: options.waitForProviderMs ?? 0,
      providerGraceMs: options.providerGraceMs ?? 0,
      durable,
      providerHere: registered !== undefined,
      ...fleetView(),
    }),
    ...(inspect && { inspect }),
    ...(telemetry && { telemetry }),
  })
  const follower = createFollower({
    store,
    seamId,
    asks,
    presenter,
    fleet: (event) => tellFleet(fleet, event),
    stopped: isClosed,
  })

  fleet.on('fleet.ready', () => markReady())
  fleet.on('fleet.read', ({ providerElsewhere }) => {
    asks.tell({ type: 'providers.elsewhere', active: providerElsewhere })
  })
  fleet.on('fleet.swept', ({ at }) => follower.watchDeadlines(at))
  slot.on('provider.available', () => {
    tellFleet(fleet, { type: 'provider.changed', active: true })
    asks.tell({ type: 'provider.available' })
    follower.showAll()
  })
  // The slot announces only the disposal of the registration that holds it: a stale disposer is refused there.
  slot.on('provider.disposed', () => {
    registered = undefined
    tellFleet(fleet, { type: 'provider.changed', active: false })
    asks.tell({ type: 'provider.disposed' })
    presenter.withdraw(handedOverOutcome())
  })
  slot.start()
  fleet.start()
  follower.start()

  const seam: UserQuestions = {
    registerProvider(provider) {
      checkProvider(provider)
      const registration = ++registrations
      const event = { type: 'provider.registered', registration } as const
      if (!slot.getSnapshot().can(event)) {
        throw isClosed() ? closedError() : duplicateError()
      }
      registered = provider
      slot.send(event)
      return () => slot.send({ type: 'provider.disposed', registration })
    },

    ask(request) {
      return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
        try {
          if (isClosed()) throw closedError()
          checkNotAborted(request)
          const validated = validateRequest(request, {
            checkCaller: (agent) => checkCaller(options.agents, agent, options),
          })
          asks.ask(validated, resolve, reject)
        } catch (error: unknown) {
          reject(coded(error))
        }
      })
    },

    pending() {
      const { providerElsewhere } = fleetView()
      const shownElsewhere = (askId: string) => presenter.shows(askId) || providerElsewhere
      const others = follower.pending(shownElsewhere).filter(({ askId }) => !asks.runs(askId))
      return [...asks.pending(shownElsewhere), ...others].sort((a, b) => a.startedAt - b.startedAt)
    },

    history: async (query) => store.history(readHistoryQuery(query)),

    close() {
      if (closing !== undefined) return closing
      slot.send({ type: 'seam.closed' })
      follower.stop()
      // Another seam's ask goes on without this UI: its presentation is handed over, not ended.
      closing = Promise.all([asks.close(), presenter.end(handedOverOutcome())]).then(() =>
        stopFleet(fleet),
      )
      return closing
    },
  }

  registerSeamHooks(seam, {
    crash() {
      slot.send({ type: 'seam.closed' })
      follower.stop()
      tellFleet(fleet, { type: 'fleet.crash' })
      asks.crash()
      presenter.crash()
    },
    catchUp: (askIds) => (isClosed() ? Promise.resolve() : follower.catchUp(askIds)),
  })
  return seam
}

/** The options a seam is made of, checked: durations a timer holds, guarded hooks, its store. */
function readOptions(options: UserQuestionsOptions) {
  checkDurations(options)
  const store = options.store ?? createMemoryStore()
  return {
    inspect: options.inspect === undefined ? undefined : guardInspection(options.inspect),
    telemetry: options.telemetry === undefined ? undefined : guardTelemetry(options.telemetry),
    store,
    durable: store.processLocal !== true,
  }
}

/** Refuses, as a TypeError, a duration option a timer cannot hold. */
function checkDurations(options: UserQuestionsOptions): void {
  checkDuration('timeoutMs', options.timeoutMs, true)
  checkDuration('waitForProviderMs', options.waitForProviderMs, false)
  checkDuration('providerGraceMs', options.providerGraceMs, false)
}

function checkDuration(name: string, value: number | undefined, allowInfinity: boolean): void {
  if (value !== undefined && !isDuration(value, allowInfinity)) {
    throw new TypeError(
      `createUserQuestions: ${name} must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS}${allowInfinity ? ' or Infinity' : ''}`,
    )
  }
}

/**
 * Any throwable as a coded error: what `ask()` rejects with when something
 * unplanned threw. Validation codes every fault of the request itself, so
 * anything else is the seam's: the fault an ask's machine gets too.
 */
function coded(error: unknown): UserQuestionError {
  if (error instanceof UserQuestionError) return error
  return outcomeError(seamFaultOutcome().error, error)
}

/**
 * The caller's inspection observer, made unable to break an ask. XState calls
 * it inside sends and transitions, where a throw would fault the ask's actor
 * or the send of whoever told it something; the throw reaches the process on
 * a turn of its own instead, as a store watcher's does.
 */
function guardInspection(observer: InspectionObserver): (event: InspectionEvent) => void {
  return (event) => {
    try {
      if (typeof observer === 'function') observer(event)
      else observer.next?.(event)
    } catch (error: unknown) {
      queueMicrotask(() => {
        throw error
      })
    }
  }
}

const closedError = () => new UserQuestionError('the question seam is closed', 'SEAM_CLOSED')
const duplicateError = () =>
  new UserQuestionError('another question provider is already active', 'DUPLICATE_PROVIDER')

/** Refuses, as a TypeError, what cannot be a provider: one without an `ask(request)` function. */
function checkProvider(provider: unknown): void {
  let ask: unknown
  try {
    ask = (provider as Partial<UserQuestionProvider> | null)?.ask
  } catch (error: unknown) {
    throw new TypeError('registerProvider: the provider’s ask could not be read', { cause: error })
  }
  if (typeof ask !== 'function') {
    throw new TypeError('registerProvider: the provider must have an ask(request) function')
  }
}
