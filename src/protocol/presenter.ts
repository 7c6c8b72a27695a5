import { createActor } from 'xstate'
import type { Actor } from 'xstate'
import { presentationMachine } from '../machines/index.js'
import type {
  PresentationContext,
  PresentationEvent,
  PresentationOutput,
} from '../machines/index.js'
import { commitFailed, commitPresentation, ended, readVotes, report } from './effects.js'
import type { Reportable } from './effects.js'
import { createLiveCalls } from './live-calls.js'
import { callProvider, safeProviderError } from './provider-call.js'
import type { ProviderCall } from './provider-call.js'
import type { InspectionObserver } from './seam-api.js'
import { createPresentationWatches } from './telemetry.js'
import type { SeamTelemetry } from './telemetry.js'
import type { AskRecord, AskStore, RecordedEvent } from './store/types.js'
import { errorData } from '../vocabulary/index.js'
import type {
  Agent,
  AskErrorData,
  AskOutcome,
  AskRejection,
  Responder,
  TraceContext,
  UserQuestionProvider,
  UserQuestionError,
} from '../vocabulary/index.js'

type PresentationActor = Actor<typeof presentationMachine>

/** What a seam lends the presentations of its provider. */
export interface PresenterOptions {
  store: AskStore
  /** The provider now registered, if any. */
  provider(): UserQuestionProvider | undefined
  /** The live error an ask's error data stands for: for an ask a caller here waits on, the very object it gets. */
  errorFor(askId: string, error: AskErrorData): UserQuestionError
  /** The live agent that asked, where a caller here waits on the ask. */
  agentOf(askId: string): Agent | undefined
  /** The trace context of an ask a caller here waits on, where its telemetry made one. */
  traceContextOf(askId: string): TraceContext | undefined
  /**
   * Keeps the provider's own error, or the store's, beside the ask: the
   * cause its caller gets if the ask ends with it.
   */
  onCause(askId: string, kind: 'provider' | 'store', error: unknown): void
  /** A presentation of another seam's ask ended. */
  onEnded(askId: string, output: PresentationOutput): void
  inspect?: InspectionObserver
  /** Told when each presentation opens and closes (already guarded: its hooks do not throw). */
  telemetry?: SeamTelemetry
}

/** The presentations of a seam's provider (DESIGN §6: one `presentationMachine` for each). */
export interface Presenter {
  /** `presentationMachine` bound to the provider and the store: the child of each ask this seam runs. */
  readonly machine: typeof presentationMachine
  /** Shows another seam's pending ask, unless it is shown already or there is no provider. */
  show(record: AskRecord): void
  /** Tells another seam's presentation the ask's committed outcome. */
  settled(askId: string, outcome: AskOutcome): void
  /** The provider goes: every presentation of another seam's ask that holds no answer comes down. */
  withdraw(error: AskRejection): void
  /** Ends every presentation of another seam's ask (the seam closes); resolves once each has ended. */
  end(error: AskRejection): Promise<void>
  /** Drops every presentation as a killed process would: nothing is told. */
  crash(): void
  /** Whether another seam's ask is shown here. */
  shows(askId: string): boolean
  /** Takes an ask's question down at once, outside any machine: its ask faulted. */
  takeDown(askId: string, reason: UserQuestionError): void
  /** Settles once the ask's record writes under way (its `presented`, its refusals) are done or failed. */
  recorded(askId: string): Promise<void>
}

/**
 * Shows the ask to the seam's provider: the request its machine's context
 * makes, the call's answer reported back as `provider.*`; `undefined` (and
 * `provider.failed` at once) when no provider is there.
 */
function openCall(
  options: PresenterOptions,
  context: PresentationContext,
  reportTo: Reportable<PresentationEvent>,
): ProviderCall | undefined {
  const provider = options.provider()
  if (provider === undefined) {
    reportTo.send({
      type: 'provider.failed',
      error: { code: 'PROVIDER_FAILED', message: 'no provider is active' },
    })
    return undefined
  }
  const { policy } = context
  return callProvider(
    provider,
    {
      askId: context.askId,
      questions: context.questions,
      agent: options.agentOf(context.askId),
      deadline: context.deadline,
      answerers: policy?.answerers,
      approvals:
        policy?.approvals === undefined
          ? undefined
          : { required: policy.approvals, given: context.given },
    },
    (answer) =>
      report<unknown, PresentationEvent>(
        reportTo,
        answer,
        (value) => ({ type: 'provider.answered', answer: value }),
        (error) => {
          const safe = safeProviderError(error)
          options.onCause(context.askId, 'provider', safe)
          return { type: 'provider.failed', error: errorData(safe) }
        },
      ),
  )
}

/**
 * The record of the asks a seam shows, kept best-effort (a failed write is
 * dropped): each ask's events are written one after another, so they land
 * in the order they happened.
 */
function createRecordWrites(store: AskStore) {
  /** Each ask's record writes under way, chained. */
  const recording = new Map<string, Promise<void>>()
  /** Settles once the ask's record writes begun so far are done or failed. */
  const recorded = (askId: string) => recording.get(askId) ?? Promise.resolve()
  return {
    recorded,
    /** Appends an event to the ask's record, after those before it. */
    keep(askId: string, event: RecordedEvent): void {
      const write = recorded(askId)
        .then(() => store.record(askId, event))
        .then(
          () => undefined,
          () => undefined,
        )
      recording.set(askId, write)
      void write.then(() => {
        if (recording.get(askId) === write) recording.delete(askId)
      })
    },
    clear: () => recording.clear(),
  }
}

/** Creates a seam's {@link Presenter}. */
export function createPresenter(options: PresenterOptions): Presenter {
  const { store } = options
  /** The live calls of each ask shown, own or another seam's, until its presentation ends. */
  const calls = createLiveCalls()
  /** Each ask of another seam shown here: its presentation, and the trace context that seam kept with it. */
  const foreign = new Map<
    string,
    { actor: PresentationActor; traceContext: TraceContext | undefined }
  >()
  /** What watches each open presentation, beside its call. */
  const watches = createPresentationWatches(options.telemetry)
  /** The record of each ask shown here, written in order. */
  const records = createRecordWrites(store)

  const machine = presentationMachine.provide({
    actions: {
      // A count the store cannot give now is shown as this presentation knows it: the next vote corrects it.
      readVotes: ({ context, self }) => {
        report<Responder[], PresentationEvent>(
          self as { send(event: PresentationEvent): void } & typeof self,
          readVotes(store, context.askId),
          (given) => ({ type: 'votes.read', given }),
          () => ({ type: 'votes.read', given: context.given }),
        )
      },
      callProvider: ({ context, self }) => {
        const call = openCall(
          options,
          context,
          self as { send(event: PresentationEvent): void } & typeof self,
        )
        if (call === undefined) return
        records.keep(context.askId, { type: 'presented', at: Date.now() })
        calls.open(context.askId, call)
        watches.opened(
          context.askId,
          () => foreign.get(context.askId)?.traceContext ?? options.traceContextOf(context.askId),
        )
      },
      commitProposal: ({ context, self }) => {
        report<PresentationEvent, PresentationEvent>(
          self as { send(event: PresentationEvent): void } & typeof self,
          commitPresentation(store, context, records.recorded(context.askId)),
          (event) => event,
          (error) => {
            options.onCause(context.askId, 'store', error)
            return commitFailed(error)
          },
        )
      },
      endPresentation: ({ context }, { error }) => {
        watches.closed(context.askId, context.outcome === undefined ? 'taken-down' : 'refused')
        end(context.askId, options.errorFor(context.askId, error.error))
      },
      tellSettlement: ({ context }, verdict) => {
        const { askId } = context
        watches.closed(askId, 'accepted')
        // An answer that did not end the ask: the ask is presented again.
        const goesOn = verdict.status === 'counted' || context.outcome === undefined
        if (verdict.status !== 'refused') {
          calls.tell(askId, verdict, goesOn)
          return
        }
        calls.tell(
          askId,
          { status: 'refused', error: options.errorFor(askId, verdict.error) },
          goesOn,
        )
        // An answer refused while the ask stays pending is part of its record.
        if (goesOn) {
          records.keep(askId, {
            type: 'refused',
            at: Date.now(),
            ...(verdict.by === undefined ? {} : { by: verdict.by }),
            detail: { code: verdict.error.code, ...verdict.error.details },
          })
        }
      },
    },
  })

  /** Aborts the provider's signals with `reason` (even after it answered) and tells it `refused`. */
  const end = (askId: string, reason: UserQuestionError) => {
    watches.closed(askId, 'taken-down')
    calls.end(askId, reason)
  }

  const tell = (askId: string, event: PresentationEvent) => {
    const actor = foreign.get(askId)?.actor
    if (actor?.getSnapshot().status === 'active') actor.send(event)
  }

  return {
    machine,

    show(record) {
      if (options.provider() === undefined || foreign.has(record.askId)) return
      const input = {
        askId: record.askId,
        questions: record.questions,
        startedAt: record.startedAt,
        deadline: record.deadline,
        openedAt: Date.now(),
        policy: record.policy,
      }
      const actor = createActor(
        machine,
        options.inspect === undefined ? { input } : { input, inspect: options.inspect },
      )
      const shown = { actor, traceContext: record.traceContext }
      foreign.set(record.askId, shown)
      actor.subscribe({
        complete: () => {
          if (foreign.get(record.askId) === shown) foreign.delete(record.askId)
          const { status, output } = actor.getSnapshot()
          // A presentation stopped with its seam (a crash) ended nothing.
          if (status === 'done') options.onEnded(record.askId, output as PresentationOutput)
        },
      })
      actor.start()
    },

    settled: (askId, outcome) => tell(askId, { type: 'ask.settled', outcome }),

    withdraw(error) {
      for (const askId of [...foreign.keys()]) tell(askId, { type: 'provider.withdrawn', error })
    },

    end(error) {
      const ends = [...foreign.values()].map(({ actor }) => ended(actor))
      for (const askId of [...foreign.keys()]) tell(askId, { type: 'ask.ending', error })
      return Promise.all(ends).then(() => undefined)
    },

    crash() {
      for (const { actor } of foreign.values()) actor.stop()
      foreign.clear()
      // A dead process's provider settles nothing: what it was showing is simply gone.
      calls.clear()
      watches.clear()
      records.clear()
    },

    shows: (askId) => foreign.has(askId),

    takeDown: end,

    recorded: records.recorded,
  }
}
