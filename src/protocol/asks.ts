import { createActor } from 'xstate'
import type { Actor } from 'xstate'
import { askMachine } from '../machines/index.js'
import type {
  AdmissionResult,
  AskCause,
  AskEvent,
  AskOutput,
  presentationMachine,
} from '../machines/index.js'
import { createAbortFanout } from './abort-fanout.js'
import { commitOutcome, report } from './effects.js'
import { newId } from './ids.js'
import type { InspectionObserver } from './seam-api.js'
import { readAdmission } from './store/rows.js'
import type { AskRecord, AskStore, NewAskRecord } from './store/types.js'
import {
  callerAbortOutcome,
  outcomeError,
  sameQuestions,
  otherQuestionsOutcome,
  seamFaultOutcome,
} from '../vocabulary/index.js'
import type {
  Agent,
  AskErrorData,
  AskOutcome,
  AskUserQuestionAnswer,
  PendingAsk,
  ValidatedRequest,
  UserQuestionError,
} from '../vocabulary/index.js'

/*
 * The caller's side of a seam: one `askMachine` actor per ask, and beside it
 * what a machine may not hold (DESIGN §6): the callers' promises and
 * signals, the live causes of its error, the agent that asked.
 */

type AskActor = Actor<typeof askMachine>

/** One caller waiting on an ask. */
interface Caller {
  resolve(answer: AskUserQuestionAnswer): void
  reject(error: UserQuestionError): void
  signal: AbortSignal | undefined
  ask: AskHandle
}

/** An ask callers of this seam wait on, and the live values beside its actor. */
interface AskHandle {
  actor: AskActor
  /** The ask's id in the store: minted here, or the held ask's once the machine follows it. */
  askId: string
  key: string | undefined
  agent: Agent | undefined
  callers: Caller[]
  /** The live causes an error of this ask may carry (see `AskCause`). */
  causes: { caller?: unknown; provider?: UserQuestionError; store?: unknown }
  /** The last error made for this ask: the provider's signal and the caller get the same object. */
  error: UserQuestionError | undefined
}

/** What a seam lends its asks. */
export interface AsksOptions {
  store: AskStore
  seamId: string
  /** The bound `presentationMachine` each presented ask runs as its child. */
  presentation: typeof presentationMachine
  /** Settles once the seam's first lease write has: an ask is admitted only after it. */
  ready(): Promise<void>
  /** What every new ask starts from, besides its request. */
  defaults(): {
    waitForProviderMs: number
    providerGraceMs: number
    durable: boolean
    providerHere: boolean
    providerElsewhere: boolean
    fleetKnown: boolean
  }
  timeoutMs: number | undefined
  /** Takes a faulted ask's question down, outside its machine. */
  takeDown(askId: string, reason: UserQuestionError): void
  inspect?: InspectionObserver
}

/** The asks of one seam. */
export interface Asks {
  /** Starts an ask for a validated request, or attaches the caller to the one this seam runs under its key. */
  ask(
    request: ValidatedRequest,
    resolve: (answer: AskUserQuestionAnswer) => void,
    reject: (error: UserQuestionError) => void,
  ): void
  /** Tells every ask. */
  tell(event: AskEvent): void
  /** Tells the ask with this id, if this seam runs it; returns whether it does. */
  tellAsk(askId: string, event: AskEvent): boolean
  /** The live error an ask's error data stands for (see {@link AskHandle.error}). */
  errorFor(askId: string, error: AskErrorData): UserQuestionError
  agentOf(askId: string): Agent | undefined
  noteProviderError(askId: string, error: UserQuestionError): void
  /** The asks this seam runs, as `pending()` lists them; a followed ask is shown where `shown` says. */
  pending(shown?: (askId: string) => boolean): PendingAsk[]
  /** Whether this seam runs the ask with this id. */
  runs(askId: string): boolean
  /** Ends every ask as `close()` does; resolves once each has its outcome. */
  close(): Promise<void>
  /** Drops every ask as a killed process would: no caller hears, nothing is written. */
  crash(): void
}

/** Creates a seam's {@link Asks}. */
export function createAsks(options: AsksOptions): Asks {
  const { store, seamId } = options
  const byActor = new WeakMap<object, AskHandle>()
  const byId = new Map<string, AskHandle>()
  const byKey = new Map<string, AskHandle>()
  const signals = createAbortFanout<Caller>((caller, reason) => callerAborted(caller, reason))
  /** Writes made outside a machine (a faulted ask's outcome): `close()` waits for them. */
  const writes = new Set<Promise<unknown>>()

  const machine = askMachine.provide({
    actors: { presentation: options.presentation },
    actions: {
      admit: ({ context, self }) => {
        const record: NewAskRecord = {
          askId: context.askId,
          questions: context.questions,
          ownerSeamId: seamId,
          startedAt: context.startedAt,
        }
        if (context.key !== undefined) record.key = context.key
        if (context.agentId !== undefined) record.agentId = context.agentId
        if (context.deadline !== undefined) record.deadline = context.deadline
        report<AdmissionResult, AskEvent>(
          self,
          async () => admission(byActor.get(self), await admitted(record)),
          (result) => ({ type: 'admission.done', result }),
          (error) => failedWith(self, error, { type: 'admission.failed' }),
        )
      },
      offerCommit: ({ context, self }) => {
        report<{ outcome: AskOutcome; won: boolean }, AskEvent>(
          self,
          () => commitOutcome(store, context.askId, context.proposal?.outcome as AskOutcome),
          (committed) => ({ type: 'commit.done', ...committed }),
          (error) => failedWith(self, error, { type: 'commit.failed' }),
        )
      },
    },
  })

  const admitted = async (record: NewAskRecord) => {
    await options.ready()
    return readAdmission(await store.admit(record))
  }

  /** What the store made of the admission, for the machine; an ask it already held is followed here under its own id. */
  const admission = (
    handle: AskHandle | undefined,
    result: { status: 'admitted' | 'existing'; record: AskRecord },
  ): AdmissionResult => {
    if (result.status === 'admitted') return { status: 'admitted' }
    const { record } = result
    // The machine will follow a pending held ask with the same questions: it is known here by its id.
    const follows =
      record.state === 'pending' &&
      handle !== undefined &&
      sameQuestions(record.questions, handle.actor.getSnapshot().context.questions)
    if (follows) {
      if (byId.get(handle.askId) === handle) byId.delete(handle.askId)
      handle.askId = record.askId
      byId.set(record.askId, handle)
    }
    return {
      status: 'existing',
      ask: {
        askId: record.askId,
        questions: record.questions,
        startedAt: record.startedAt,
        ...(record.deadline === undefined ? {} : { deadline: record.deadline }),
        ...(record.agentId === undefined ? {} : { agentId: record.agentId }),
        ...(record.outcome === undefined ? {} : { outcome: record.outcome }),
      },
    }
  }

  const failedWith = (self: object, error: unknown, event: AskEvent): AskEvent => {
    const handle = byActor.get(self)
    if (handle !== undefined) handle.causes.store = error
    return event
  }

  /** The live error for an ask's error data: made once, so the provider's signal and the caller share it. */
  const errorOf = (handle: AskHandle, data: AskErrorData, cause?: AskCause): UserQuestionError => {
    const last = handle.error
    if (last !== undefined && last.code === data.code && last.message === data.message) return last
    const provider = handle.causes.provider
    let error: UserQuestionError
    if (cause === 'provider' && provider !== undefined && provider.code === data.code) {
      error = provider
    } else {
      const live =
        cause === 'store' || (cause === undefined && data.code === 'STORE_FAILED')
          ? handle.causes.store
          : data.details?.reason === 'caller-aborted'
            ? handle.causes.caller
            : undefined
      error = outcomeError(data, live)
    }
    handle.error = error
    return error
  }

  const settleCallers = (handle: AskHandle, output: AskOutput) => {
    const callers = handle.callers
    handle.callers = []
    for (const caller of callers) unwatch(caller)
    for (const caller of callers) {
      if (output.status === 'answered') caller.resolve(output.answer)
      else caller.reject(errorOf(handle, output.error, output.cause))
    }
  }

  const forget = (handle: AskHandle) => {
    if (byId.get(handle.askId) === handle) byId.delete(handle.askId)
    if (handle.key !== undefined && byKey.get(handle.key) === handle) byKey.delete(handle.key)
  }

  /** An internal fault in an ask's machine still settles the ask (issue 10). */
  const faulted = (handle: AskHandle, fault: unknown) => {
    forget(handle)
    const outcome = seamFaultOutcome()
    const { askId } = handle
    const error = outcomeError(outcome.error, fault)
    handle.error = error
    options.takeDown(askId, error)
    const write = Promise.resolve()
      .then(() => store.settle(askId, outcome, Date.now()))
      .catch(() => undefined)
      .finally(() => writes.delete(write))
    writes.add(write)
    settleCallers(handle, { status: 'rejected', error: outcome.error })
  }

  const start = (request: ValidatedRequest, caller: Omit<Caller, 'ask'>) => {
    const now = Date.now()
    const timeoutMs = request.timeoutMs ?? options.timeoutMs
    const agent = request.agent as Agent | undefined
    const input = {
      askId: newId(),
      questions: request.questions,
      startedAt: now,
      ...options.defaults(),
      ...(request.key === undefined ? {} : { key: request.key }),
      ...(agent === undefined ? {} : { agentId: agent.id }),
      ...(timeoutMs === undefined || timeoutMs === Infinity ? {} : { deadline: now + timeoutMs }),
    }
    const actor = createActor(
      machine,
      options.inspect === undefined ? { input } : { input, inspect: options.inspect },
    )
    const handle: AskHandle = {
      actor,
      askId: input.askId,
      key: request.key,
      agent,
      callers: [],
      causes: {},
      error: undefined,
    }
    // First, since a signal that cannot be listened to refuses the ask: nothing is left behind.
    join(handle, caller)
    byActor.set(actor, handle)
    byId.set(input.askId, handle)
    if (request.key !== undefined) byKey.set(request.key, handle)
    actor.subscribe({
      complete: () => {
        forget(handle)
        const { status, output } = actor.getSnapshot()
        // An ask stopped with its seam (a crash) has no outcome, and its callers never hear.
        if (status === 'done') settleCallers(handle, output as AskOutput)
      },
      error: (fault) => faulted(handle, fault),
    })
    actor.start()
  }

  const join = (handle: AskHandle, caller: Omit<Caller, 'ask'>) => {
    const joined: Caller = { ...caller, ask: handle }
    if (joined.signal !== undefined) signals.watch(joined.signal, joined)
    handle.callers.push(joined)
  }

  const unwatch = (caller: Caller) => {
    if (caller.signal === undefined) return
    signals.unwatch(caller.signal, caller)
    caller.signal = undefined
  }

  const callerAborted = (caller: Caller, reason: unknown) => {
    const handle = caller.ask
    const index = handle.callers.indexOf(caller)
    if (index === -1) return
    unwatch(caller)
    if (handle.callers.length > 1) {
      // Another caller still waits: this one leaves, the ask goes on.
      handle.callers.splice(index, 1)
      caller.reject(outcomeError(callerAbortOutcome().error, reason))
      return
    }
    handle.causes.caller = reason
    handle.actor.send({ type: 'ask.aborted' })
  }

  const handleOf = (askId: string) => byId.get(askId)

  return {
    ask(request, resolve, reject) {
      const caller = { resolve, reject, signal: request.signal }
      const held = request.key === undefined ? undefined : byKey.get(request.key)
      if (held === undefined) return start(request, caller)
      const context = held.actor.getSnapshot().context
      if (!sameQuestions(context.questions, request.questions)) {
        reject(outcomeError(otherQuestionsOutcome(context.askId).error))
        return
      }
      join(held, caller)
    },

    tell(event) {
      for (const handle of [...byId.values()]) handle.actor.send(event)
    },

    tellAsk(askId, event) {
      const handle = handleOf(askId)
      handle?.actor.send(event)
      return handle !== undefined
    },

    errorFor(askId, data) {
      const handle = handleOf(askId)
      return handle === undefined ? outcomeError(data) : errorOf(handle, data)
    },

    agentOf: (askId) => handleOf(askId)?.agent,

    noteProviderError(askId, error) {
      const handle = handleOf(askId)
      if (handle !== undefined) handle.causes.provider = error
    },

    pending(shownElsewhere = () => false) {
      const list: PendingAsk[] = []
      for (const handle of byId.values()) {
        const snapshot = handle.actor.getSnapshot()
        const { askId, questions, agentId, startedAt, deadline } = snapshot.context
        const shown =
          snapshot.matches({ pending: 'presented' }) ||
          snapshot.matches({ pending: 'presentedElsewhere' }) ||
          snapshot.matches('committing') ||
          (snapshot.matches({ pending: 'following' }) && shownElsewhere(askId))
        const entry: PendingAsk = {
          askId,
          questions,
          state: shown ? 'presenting' : 'waiting-for-provider',
          startedAt,
        }
        if (agentId !== undefined) entry.agentId = agentId
        if (deadline !== undefined) entry.deadline = deadline
        list.push(entry)
      }
      return list
    },

    runs: (askId) => byId.has(askId),

    close() {
      const ends = [...byId.values()].map(
        ({ actor }) =>
          new Promise<void>((resolve) => {
            actor.subscribe({ complete: resolve, error: () => resolve() })
            if (actor.getSnapshot().status !== 'active') resolve()
          }),
      )
      for (const handle of [...byId.values()]) handle.actor.send({ type: 'seam.closed' })
      return Promise.all(ends)
        .then(() => Promise.all(writes))
        .then(() => undefined)
    },

    crash() {
      for (const handle of byId.values()) {
        for (const caller of handle.callers) unwatch(caller)
        handle.callers = []
        handle.actor.stop()
      }
      byId.clear()
      byKey.clear()
    },
  }
}
