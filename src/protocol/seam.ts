import { createActor } from 'xstate'
import {
  callerAbortOutcome,
  noProviderOutcome,
  outcomeError,
  seamClosedOutcome,
  seamMachine,
} from '../machines/index.js'
import type { AskInput } from '../machines/index.js'
import { checkCaller } from './agents.js'
import { createBoundAskMachine } from './bound-ask-machine.js'
import { sameData } from './compare.js'
import { createFleet } from './fleet.js'
import { newId } from './ids.js'
import type { Fleet } from './fleet.js'
import { createForeignPresenter } from './foreign.js'
import { createMemoryStore } from './memory-store.js'
import type { UserQuestions, UserQuestionsOptions } from './seam-api.js'
import {
  AskEnding,
  attempt,
  checkDuration,
  coded,
  guardInspection,
  pendingAsk,
  readAdmission,
  storeFailed,
} from './seam-parts.js'
import type { Caller, Entry } from './seam-parts.js'
import { createCallerSettling } from './settling.js'
import { createStoreFollower } from './store-follower.js'
import { abortPresentation } from './presentation.js'
import type { Presentation } from './presentation.js'
import type { AdmitResult, AskRecord, NewAskRecord, StoredOutcome } from './store.js'
import { UserQuestionError } from '../vocabulary/index.js'
import type {
  Agent,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  PendingAsk,
  UserQuestionProvider,
} from '../vocabulary/index.js'
import { validateRequest } from '../vocabulary/index.js'

const crashHooks = new WeakMap<UserQuestions, () => void>()

/**
 * Testing only (not exported from the package): drops `seam` as a crashed
 * process would. Its timers stop and it stops listening, but nothing is
 * released or settled: its lease lapses on its own and its callers never hear.
 */
export function dropSeamForTesting(seam: UserQuestions): void {
  crashHooks.get(seam)?.()
}

/**
 * Creates the question seam: a thin adapter over `seamMachine` (the provider
 * slot), one `askMachine` actor per ask it admits, and its store (DESIGN
 * §10). It admits requests to the store, runs their machines, presents every
 * pending ask of the store to its provider, and turns each ask's committed
 * outcome into a resolved answer or a rejected `UserQuestionError`.
 *
 * @example
 * ```ts
 * const seam = createUserQuestions({ timeoutMs: 60_000 })
 * seam.registerProvider({ ask: async ({ questions }) => ({ answers: questions.map(({ id }) => ({ id, selected: [] })) }) })
 * const { answers } = await seam.ask({ questions: [{ id: 'go', question: 'Deploy now?', options: [{ label: 'Yes' }, { label: 'No' }] }] })
 * ```
 */
export function createUserQuestions(options: UserQuestionsOptions = {}): UserQuestions {
  checkDuration('timeoutMs', options.timeoutMs, true)
  checkDuration('waitForProviderMs', options.waitForProviderMs, false)
  checkDuration('providerGraceMs', options.providerGraceMs, false)
  const { agents } = options
  const inspect = options.inspect === undefined ? undefined : guardInspection(options.inspect)
  const store = options.store ?? createMemoryStore()
  const waitForProviderMs = options.waitForProviderMs ?? 0
  const providerGraceMs = options.providerGraceMs ?? 0
  const seamId = newId()
  /** Asks callers of this seam wait on, by `askId`. */
  const entries = new Map<string, Entry>()
  /** Pending asks of the store this seam runs no machine for (other seams' asks). */
  const foreign = new Map<string, AskRecord>()
  /** What this seam's provider is showing, by `askId`. */
  const presentations = new Map<string, Presentation>()
  const inflight = new Set<Promise<unknown>>()
  let registrations = 0
  let closed = false
  let crashed = false
  let closing: Promise<void> | undefined

  const slot = createActor(seamMachine, inspect === undefined ? {} : { inspect })
  const currentProvider = () => slot.getSnapshot().context.provider
  const providerHere = () => currentProvider() !== undefined

  const track = <T>(promise: Promise<T>): Promise<T> => {
    inflight.add(promise)
    void promise.finally(() => inflight.delete(promise)).catch(() => undefined)
    return promise
  }

  // ---- settling callers, and the ask machine bound to this seam's live handles ----

  const { deliver, deliverStored, errorFor, settleDirect, endings, watchCaller, unwatchCaller } =
    createCallerSettling({ entries, presentations, store, track })
  const machine = createBoundAskMachine({
    store,
    entries,
    presentations,
    currentProvider,
    errorFor,
  })

  // ---- asking ----

  const startActor = (entry: Entry) => {
    const input: AskInput = {
      askId: entry.askId,
      questions: entry.questions,
      startedAt: entry.startedAt,
      waitForProviderMs,
      providerGraceMs,
      providerHere: providerHere(),
      providerElsewhere: fleet.providerElsewhere(),
      ...(entry.deadline === undefined ? {} : { deadline: entry.deadline }),
      ...(entry.agentId === undefined ? {} : { agentId: entry.agentId }),
    }
    const actor = createActor(machine, inspect === undefined ? { input } : { input, inspect })
    entry.actor = actor
    actor.subscribe(new AskEnding(entry, endings))
    actor.start()
  }

  /** A keyed ask the store already holds: attach to it, or hand back its stored outcome. */
  const attach = (entry: Entry, record: AskRecord) => {
    if (entries.get(entry.askId) === entry) entries.delete(entry.askId)
    if (!sameData(record.questions, entry.questions)) {
      deliver(entry, {
        error: new UserQuestionError(
          'this key belongs to an ask with other questions',
          'INVALID_REQUEST',
          { details: { field: 'key', askId: record.askId } },
        ),
      })
      return
    }
    if (record.state === 'settled') {
      deliverStored(entry, record.outcome as StoredOutcome)
      return
    }
    if (entry.abortRequested) {
      deliver(entry, { error: errorFor(entry, callerAbortOutcome()) })
      return
    }
    const held = entries.get(record.askId)
    if (held !== undefined && !held.done) {
      for (const caller of entry.callers) {
        caller.entry = held
        held.callers.push(caller)
      }
      entry.callers = []
      entry.done = true
      return
    }
    if (!providerHere() && !fleet.providerElsewhere() && waitForProviderMs === 0) {
      deliver(entry, { error: noProviderError() })
      return
    }
    entry.askId = record.askId
    entry.questions = record.questions
    entry.startedAt = record.startedAt
    entry.deadline = record.deadline
    entry.agentId = record.agentId
    entry.admitting = false
    entries.set(record.askId, entry)
    noteForeign(record)
  }

  const admit = async (entry: Entry, record: NewAskRecord) => {
    let result: AdmitResult
    try {
      await fleet.ready()
      result = readAdmission(await attempt(() => store.admit(record)))
    } catch (error: unknown) {
      entry.admitting = false
      deliver(entry, { error: storeFailed(error) })
      return
    }
    runAdmitted(entry, record, result)
  }

  /**
   * Runs an admitted ask, or attaches to the one the store already held.
   * Synchronous on an ask's way, so an in-process admission allocates no
   * promise; only the store write for an ask admitted after close() is async.
   */
  const afterAdmission = (
    entry: Entry,
    record: NewAskRecord,
    result: AdmitResult,
  ): Promise<unknown> | undefined => {
    if (result.status === 'existing') {
      if (!entry.done) attach(entry, result.record)
      return undefined
    }
    entry.admitting = false
    if (entry.done || crashed) {
      // close() already told the callers; a keyless ask then ends in the store too.
      if (crashed || record.key !== undefined) return undefined
      return attempt(() => store.settle(record.askId, seamClosedOutcome(), Date.now())).catch(
        () => undefined,
      )
    }
    if (entry.abortRequested) settleDirect(entry, callerAbortOutcome())
    else startActor(entry)
    return undefined
  }

  /** {@link afterAdmission}, where a fault that escapes it still settles the ask (issue 10). */
  const runAdmitted = (entry: Entry, record: NewAskRecord, result: AdmitResult) => {
    let write: Promise<unknown> | undefined
    try {
      write = afterAdmission(entry, record, result)
    } catch (fault: unknown) {
      endings.faulted(entry, fault)
      return
    }
    if (write !== undefined) void track(write)
  }

  const start = (
    request: AskUserQuestionRequest,
    resolve: (answer: AskUserQuestionAnswer) => void,
    reject: (error: UserQuestionError) => void,
  ) => {
    if (closed) throw closedError()
    const signal = (request as { signal?: { aborted?: unknown; reason?: unknown } } | null)?.signal
    if (signal?.aborted === true) {
      throw new UserQuestionError('the caller aborted the ask before it started', 'ASK_ABORTED', {
        cause: signal.reason,
        details: { reason: 'caller-aborted' },
      })
    }
    const admitted = validateRequest(request, {
      checkCaller: (agent) => checkCaller(agents, agent, options),
    })
    const timeoutMs = admitted.timeoutMs ?? options.timeoutMs
    const key = admitted.key
    // A keyless ask with no provider anywhere fails before anything is written (DESIGN §3 order).
    const noProviderAnywhere = () =>
      key === undefined && waitForProviderMs === 0 && !providerHere() && !fleet.providerElsewhere()
    if (fleet.known() && noProviderAnywhere()) throw noProviderError()
    const startedAt = Date.now()
    const agent = admitted.agent as Agent | undefined
    const entry: Entry = {
      askId: newId(),
      questions: admitted.questions,
      startedAt,
      deadline:
        timeoutMs === undefined || timeoutMs === Infinity ? undefined : startedAt + timeoutMs,
      agentId: agent?.id,
      key,
      agent,
      actor: undefined,
      admitting: true,
      callers: [],
      abortRequested: false,
      abortCause: undefined,
      localError: undefined,
      storeCause: undefined,
      settling: false,
      done: false,
      onDone: undefined,
    }
    const caller: Caller = { entry, resolve, reject, signal: admitted.signal }
    watchCaller(caller)
    // A literal: an array grown by push reserves room for 16 more callers.
    entry.callers = [caller]
    entries.set(entry.askId, entry)
    const record: NewAskRecord = {
      askId: entry.askId,
      questions: entry.questions,
      ownerSeamId: seamId,
      startedAt,
    }
    if (key !== undefined) record.key = key
    if (entry.agentId !== undefined) record.agentId = entry.agentId
    if (entry.deadline !== undefined) record.deadline = entry.deadline
    // A seam that has not heard from its fleet yet waits for it before deciding NO_PROVIDER.
    if (fleet.known() || providerHere()) admitEntry(entry, record)
    else {
      void fleet.firstRead().then(() => {
        if (entry.done) return
        if (!noProviderAnywhere()) admitEntry(entry, record)
        else {
          entry.admitting = false
          deliver(entry, { error: noProviderError() })
        }
      })
    }
  }

  const noProviderError = () => outcomeError(noProviderOutcome().error)

  const admitEntry = (entry: Entry, record: NewAskRecord) => {
    if (store.processLocal === true && store.admitNow !== undefined) {
      // In-process: admitted, and presented, in the same turn (the store is written first).
      let result: AdmitResult
      try {
        result = readAdmission(store.admitNow(record))
      } catch (error: unknown) {
        entry.admitting = false
        deliver(entry, { error: storeFailed(error) })
        return
      }
      runAdmitted(entry, record, result)
    } else {
      void track(admit(entry, record))
    }
  }

  // ---- the fleet, other seams' asks and the store's changes ----

  const openForeign = createForeignPresenter({ store, presentations, currentProvider })

  const fleet: Fleet = createFleet({
    store,
    seamId,
    providerActive: providerHere,
    onProvidersElsewhere: (active) => {
      for (const entry of [...entries.values()]) {
        entry.actor?.send({ type: 'providers.elsewhere', active })
      }
    },
    nextDeadline: () => {
      let next: number | undefined
      for (const record of foreign.values()) {
        if (record.deadline !== undefined && (next === undefined || record.deadline < next)) {
          next = record.deadline
        }
      }
      return next
    },
  })

  const { noteForeign, onChange, resync } = createStoreFollower({
    store,
    seamId,
    entries,
    foreign,
    presentations,
    fleet,
    openForeign,
    deliver,
    deliverStored,
    stopped: () => closed || crashed,
  })

  // ---- the provider slot ----

  slot.on('provider.available', () => {
    fleet.beat()
    for (const entry of [...entries.values()]) entry.actor?.send({ type: 'provider.available' })
    for (const record of [...foreign.values()]) openForeign(record)
  })
  slot.on('provider.disposed', () => {
    fleet.beat()
    for (const entry of [...entries.values()]) entry.actor?.send({ type: 'provider.disposed' })
    for (const [askId, presentation] of [...presentations]) {
      if (entries.get(askId)?.actor !== undefined) continue
      presentations.delete(askId)
      abortPresentation(
        presentation,
        new UserQuestionError('the provider was disposed', 'ASK_ABORTED', {
          details: { reason: 'provider-disposed', handOver: true },
        }),
      )
    }
  })
  slot.start()

  const unwatchStore = store.watch(onChange)
  void fleet.start().then(resync)

  const closedError = () => new UserQuestionError('the question seam is closed', 'SEAM_CLOSED')

  const seam: UserQuestions = {
    registerProvider(provider) {
      let ask: unknown
      try {
        ask = (provider as Partial<UserQuestionProvider> | null)?.ask
      } catch (error: unknown) {
        throw new TypeError('registerProvider: the provider’s ask could not be read', {
          cause: error,
        })
      }
      if (typeof ask !== 'function') {
        throw new TypeError('registerProvider: the provider must have an ask(request) function')
      }
      const registration = ++registrations
      const event = { type: 'provider.registered', provider, registration } as const
      const snapshot = slot.getSnapshot()
      if (!snapshot.can(event)) {
        throw snapshot.matches('closed')
          ? closedError()
          : new UserQuestionError(
              'another question provider is already active',
              'DUPLICATE_PROVIDER',
            )
      }
      slot.send(event)
      return () => slot.send({ type: 'provider.disposed', registration })
    },

    ask(request) {
      return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
        try {
          start(request, resolve, reject)
        } catch (error: unknown) {
          reject(coded(error))
        }
      })
    },

    pending() {
      const list: PendingAsk[] = []
      for (const entry of entries.values()) {
        if (entry.done || (!entry.admitting && entry.actor === undefined)) continue
        const snapshot = entry.actor?.getSnapshot()
        const waiting =
          snapshot === undefined ||
          snapshot.matches({ pending: 'waitingForProvider' }) ||
          snapshot.matches({ pending: 'starting' })
        list.push(pendingAsk(entry, waiting ? 'waiting-for-provider' : 'presenting'))
      }
      if (foreign.size === 0) return list
      const presentedElsewhere = fleet.providerElsewhere()
      for (const record of foreign.values()) {
        const shown = presentations.has(record.askId) || presentedElsewhere
        list.push(pendingAsk(record, shown ? 'presenting' : 'waiting-for-provider'))
      }
      return list.sort((a, b) => a.startedAt - b.startedAt)
    },

    close() {
      if (closing !== undefined) return closing
      closed = true
      slot.send({ type: 'seam.closed' })
      unwatchStore()
      const waits: Promise<unknown>[] = [...inflight]
      const error = outcomeError(seamClosedOutcome().error)
      for (const entry of [...entries.values()]) {
        const actor = entry.actor
        if (
          actor !== undefined &&
          entry.key === undefined &&
          actor.getSnapshot().status === 'active'
        ) {
          waits.push(new Promise<void>((resolve) => (entry.onDone = resolve)))
          actor.send({ type: 'seam.closed' })
          continue
        }
        const presentation = presentations.get(entry.askId)
        if (presentation !== undefined) {
          presentations.delete(entry.askId)
          abortPresentation(presentation, error)
        }
        deliver(entry, { error })
        actor?.stop()
      }
      for (const [askId, presentation] of [...presentations]) {
        if (entries.get(askId)?.actor !== undefined) continue
        presentations.delete(askId)
        abortPresentation(presentation, error)
      }
      foreign.clear()
      closing = Promise.allSettled(waits).then(() => fleet.stop(true))
      return closing
    },
  }

  crashHooks.set(seam, () => {
    crashed = true
    closed = true
    unwatchStore()
    fleet.crash()
    for (const entry of entries.values()) {
      entry.done = true
      for (const caller of entry.callers) unwatchCaller(caller)
      entry.actor?.stop()
    }
    entries.clear()
    // A dead process's provider settles nothing: what it was showing is simply gone.
    for (const presentation of presentations.values()) presentation.ended = true
    presentations.clear()
    foreign.clear()
  })
  return seam
}
