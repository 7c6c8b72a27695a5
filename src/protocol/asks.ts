import { createActor } from 'xstate'
import type { Actor } from 'xstate'
import { askMachine } from '../machines/index.js'
import type {
  AdmissionResult,
  AskEvent,
  AskInput,
  AskOutput,
  presentationMachine,
  UnwrittenEnding,
} from '../machines/index.js'
import { createCallerSignals, errorOf, keepCause } from './callers.js'
import type { AskHandle, Caller } from './callers.js'
import { commitFailed, commitOutcome, ended, newAskRecord, report } from './effects.js'
import { listed } from './follower.js'
import { newId } from './ids.js'
import type { InspectionObserver } from './seam-api.js'
import { settlementOf } from './telemetry.js'
import type { SeamTelemetry, TelemetryAsk } from './telemetry.js'
import { readAdmission } from './store/rows.js'
import type { AskStore, NewAskRecord } from './store/types.js'
import {
  checkNotAborted,
  outcomeError,
  differenceOf,
  seamClosedOutcome,
  otherAskOutcome,
  seamFaultOutcome,
} from '../vocabulary/index.js'
import type {
  Agent,
  AskErrorData,
  AskOutcome,
  AskUserQuestionAnswer,
  PendingAsk,
  TraceContext,
  ValidatedRequest,
  UserQuestionError,
} from '../vocabulary/index.js'

/*
 * The caller's side of a seam: one `askMachine` actor per ask, and beside it
 * what a machine may not hold (DESIGN §6): the callers' promises and
 * signals, the live causes of its error, the agent that asked.
 */

type AskActor = Actor<typeof askMachine>

/** What a seam lends its asks. */
export interface AsksOptions {
  store: AskStore
  seamId: string
  /** The bound `presentationMachine` each presented ask runs as its child. */
  presentation: typeof presentationMachine
  /** Settles once the seam's first lease write has: an ask is admitted only after it. */
  ready(): Promise<void>
  /** Whether the seam was closed or dropped: nothing new starts. */
  stopped(): boolean
  /** What every new ask starts from, besides its request. */
  defaults(): Required<
    Pick<
      AskInput,
      | 'waitForProviderMs'
      | 'providerGraceMs'
      | 'durable'
      | 'providerHere'
      | 'providerElsewhere'
      | 'fleetKnown'
    >
  >
  timeoutMs: number | undefined
  /** Takes a faulted ask's question down, outside its machine. */
  takeDown(askId: string, reason: UserQuestionError): void
  /** Settles once the ask's record writes under way are done: its ending is committed after them. */
  recorded(askId: string): Promise<void>
  /** An ask ended with its ending not written (the store may hold it pending): it is written later. */
  unwritten(ending: UnwrittenEnding): void
  inspect?: InspectionObserver
  /** Told when each ask starts and settles (already guarded: its hooks do not throw). */
  telemetry?: SeamTelemetry
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
  /** Tells the ask with this id, if this seam runs it. */
  tellAsk(askId: string, event: AskEvent): void
  /** The live error an ask's error data stands for (see {@link AskHandle.error}). */
  errorFor(askId: string, error: AskErrorData): UserQuestionError
  agentOf(askId: string): Agent | undefined
  /** The trace context this seam keeps with an ask it runs, if its telemetry made one. */
  traceContextOf(askId: string): TraceContext | undefined
  /** Keeps a live cause beside the ask (see {@link AskHandle.causes}), where this seam runs it. */
  noteCause(askId: string, kind: 'provider' | 'store', error: unknown): void
  /** The asks this seam runs, as `pending()` lists them; a followed ask is shown where `shown` says. */
  pending(shown: (askId: string) => boolean): PendingAsk[]
  /** The ids of the asks this seam runs that the store holds already: past their admission. */
  stored(): string[]
  /** Whether this seam runs the ask with this id. */
  runs(askId: string): boolean
  /** Ends every ask as `close()` does; resolves once each has its outcome. */
  close(): Promise<void>
  /** Drops every ask as a killed process would: no caller hears, nothing is written. */
  crash(): void
}

/** Creates a seam's {@link Asks}. */
export function createAsks(options: AsksOptions): Asks {
  const byActor = new WeakMap<object, AskHandle>()
  const byId = new Map<string, AskHandle>()
  const byKey = new Map<string, AskHandle>()
  const callers = createCallerSignals()
  /** Writes made outside a machine (a faulted ask's outcome): `close()` waits for them. */
  const writes = new Set<Promise<unknown>>()

  const machine = provideEffects(options, (self) => byActor.get(self))

  /** The machine adopted a held ask's id (it follows that ask): the seam knows it by that id now. */
  const rekey = (handle: AskHandle, askId: string) => {
    if (byId.get(handle.askId) === handle) byId.delete(handle.askId)
    handle.askId = askId
    byId.set(askId, handle)
  }

  const forget = (handle: AskHandle) => {
    if (byId.get(handle.askId) === handle) byId.delete(handle.askId)
    if (handle.key !== undefined && byKey.get(handle.key) === handle) byKey.delete(handle.key)
  }

  const start = (
    request: ValidatedRequest,
    resolve: Caller['resolve'],
    reject: Caller['reject'],
  ) => {
    const input = askInput(request, options)
    const actor = createActor(
      machine,
      options.inspect === undefined ? { input } : { input, inspect: options.inspect },
    )
    const handle: AskHandle = {
      actor,
      askId: input.askId,
      key: request.key,
      agent: request.agent as Agent | undefined,
      callers: [],
      causes: {},
      error: undefined,
    }
    // First, since a signal that cannot be listened to refuses the ask: nothing is left behind.
    callers.join(handle, resolve, reject, request.signal)
    // Listed before the telemetry hook runs: what it does to the seam (a provider disposed) reaches the ask.
    byActor.set(actor, handle)
    byId.set(input.askId, handle)
    if (request.key !== undefined) byKey.set(request.key, handle)
    // Here, inside ask(): the caller's ambient trace context is the current one.
    if (options.telemetry !== undefined) {
      handle.telemetry = options.telemetry.askStarted(telemetryAsk(input))
    }
    actor.subscribe({
      next: ({ context }) => {
        if (context.askId !== handle.askId) rekey(handle, context.askId)
      },
      complete: () => {
        forget(handle)
        const { status, output, context } = actor.getSnapshot()
        // An ask stopped with its seam (a crash) has no outcome, and its callers never hear.
        if (status !== 'done') return
        // The outcome, not the output: it names who answered.
        handle.telemetry?.settled(
          settlementOf(handle.askId, context.outcome ?? (output as AskOutput), context.replayed),
        )
        callers.settle(handle, output as AskOutput)
      },
      error: (fault) => {
        forget(handle)
        const write = settleFaulted(handle, fault, options).finally(() => writes.delete(write))
        writes.add(write)
        callers.settle(handle, { status: 'rejected', error: seamFaultOutcome().error })
      },
    })
    actor.start()
  }

  const handleOf = (askId: string) => byId.get(askId)

  const asks: Asks = {
    ask(request, resolve, reject) {
      const held = request.key === undefined ? undefined : byKey.get(request.key)
      if (held === undefined) return start(request, resolve, reject)
      const context = held.actor.getSnapshot().context
      // Ending already (its caller aborted, say): this caller is not given that ending, it asks
      // again once the ask has ended, and the store says what the key holds then.
      if (context.proposal !== undefined) {
        void ended(held.actor).then(() => askAgain(request, resolve, reject))
        return
      }
      const differs = differenceOf(context, request)
      if (differs !== undefined) {
        reject(outcomeError(otherAskOutcome(context.askId, differs).error))
        return
      }
      callers.join(held, resolve, reject, request.signal)
    },

    tell(event) {
      for (const handle of [...byId.values()]) handle.actor.send(event)
    },

    tellAsk(askId, event) {
      handleOf(askId)?.actor.send(event)
    },

    errorFor: (askId, data) => errorOf(handleOf(askId), data),

    agentOf: (askId) => handleOf(askId)?.agent,

    traceContextOf: (askId) => handleOf(askId)?.telemetry?.traceContext,

    noteCause: (askId, kind, error) => keepCause(handleOf(askId), kind, error),

    pending(shownElsewhere) {
      return [...byId.values()].map(({ actor }) => pendingEntry(actor, shownElsewhere))
    },

    stored: () => [...byId.values()].filter(isStored).map(({ askId }) => askId),

    runs: (askId) => byId.has(askId),

    close() {
      return endAll([...byId.values()])
        .then(() => Promise.all(writes))
        .then(() => undefined)
    },

    crash() {
      for (const handle of byId.values()) {
        callers.drop(handle)
        handle.actor.stop()
      }
      byId.clear()
      byKey.clear()
    },
  }

  /** A caller held back while its key's ask ended asks now, unless its seam or its signal ended meanwhile. */
  const askAgain: Asks['ask'] = (request, resolve, reject) => {
    try {
      if (options.stopped()) throw outcomeError(seamClosedOutcome().error)
      checkNotAborted(request)
      asks.ask(request, resolve, reject)
    } catch (error: unknown) {
      reject(error as UserQuestionError)
    }
  }
  return asks
}

/**
 * An internal fault in an ask's machine still settles the ask (issue 10):
 * its question comes down and the fault is written, outside the machine
 * (later, if that write fails). Resolves once the write is done or failed.
 */
async function settleFaulted(handle: AskHandle, fault: unknown, options: AsksOptions) {
  const outcome = seamFaultOutcome()
  const { askId } = handle
  handle.error = outcomeError(outcome.error, fault)
  options.takeDown(askId, handle.error)
  handle.telemetry?.settled(settlementOf(askId, outcome))
  try {
    await options.store.settle(askId, outcome, Date.now())
  } catch {
    options.unwritten({ askId, outcome })
  }
}

/** Whether the store holds an ask this seam runs already: it is past its admission. */
function isStored({ actor }: AskHandle): boolean {
  return !actor.getSnapshot().hasTag('admitting')
}

/** How `pending()` lists an ask this seam runs: shown wherever a provider shows it, here or elsewhere. */
function pendingEntry(actor: AskActor, shownElsewhere: (askId: string) => boolean): PendingAsk {
  const snapshot = actor.getSnapshot()
  const { askId, questions, agentId, startedAt, deadline } = snapshot.context
  const shown =
    snapshot.hasTag('shown') ||
    (snapshot.matches({ pending: 'following' }) && shownElsewhere(askId))
  return listed({ askId, questions, agentId, startedAt, deadline }, shown)
}

/** Tells every ask the seam closed; resolves once each has ended. */
function endAll(handles: AskHandle[]): Promise<unknown> {
  const ends = handles.map(({ actor }) => ended(actor))
  for (const { actor } of handles) actor.send({ type: 'seam.closed' })
  return Promise.all(ends)
}

/**
 * The ask machine with its store effects: `admit` writes the ask and
 * `offerCommit` offers a proposal, each reporting back as an event;
 * `leaveUnwritten` hands an ending the store did not take to the fleet.
 */
function provideEffects(options: AsksOptions, handleOf: (self: object) => AskHandle | undefined) {
  const { store, seamId } = options
  const admitted = async (record: NewAskRecord): Promise<AdmissionResult> => {
    await options.ready()
    const result = readAdmission(await store.admit(record))
    return result.status === 'admitted'
      ? { status: 'admitted' }
      : { status: 'existing', ask: result.record }
  }

  const failedWith = (self: object, error: unknown, event: AskEvent): AskEvent => {
    keepCause(handleOf(self), 'store', error)
    return event
  }

  return askMachine.provide({
    actors: { presentation: options.presentation },
    actions: {
      admit: ({ context, self }) => {
        const record = newAskRecord(context, seamId, handleOf(self)?.telemetry?.traceContext)
        report<AdmissionResult, AskEvent>(
          self,
          admitted(record),
          (result) => ({ type: 'admission.done', result }),
          (error) => failedWith(self, error, { type: 'admission.failed' }),
        )
      },
      offerCommit: ({ context, self }) => {
        report<{ outcome: AskOutcome; won: boolean }, AskEvent>(
          self,
          commitOutcome(
            store,
            context.askId,
            context.proposal?.outcome as AskOutcome,
            options.recorded(context.askId),
          ),
          (committed) => ({ type: 'commit.done', ...committed }),
          // A failed admission's ending keeps the admission's error as its cause, not its own write's.
          (error) =>
            context.proposal?.cause === 'store'
              ? commitFailed(error)
              : failedWith(self, error, commitFailed(error)),
        )
      },
      leaveUnwritten: ({ context }) =>
        options.unwritten({ askId: context.askId, outcome: context.outcome as AskOutcome }),
    },
  })
}

/** What a new ask's machine starts from: its request, and the seam's defaults. */
function askInput(request: ValidatedRequest, options: AsksOptions): AskInput {
  const now = Date.now()
  const timeoutMs = request.timeoutMs ?? options.timeoutMs
  const agent = request.agent as Agent | undefined
  return {
    askId: newId(),
    key: request.key,
    questions: request.questions,
    agentId: agent?.id,
    startedAt: now,
    deadline: timeoutMs === undefined || timeoutMs === Infinity ? undefined : now + timeoutMs,
    policy: request.policy,
    ...options.defaults(),
  }
}

/** What the seam's telemetry is told of a new ask. */
function telemetryAsk(input: AskInput): TelemetryAsk {
  return {
    askId: input.askId,
    questions: input.questions,
    ...(input.key === undefined ? {} : { key: input.key }),
    ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
  }
}
