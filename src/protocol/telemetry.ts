import { outcomeName, readTraceContext } from '../vocabulary/index.js'
import type {
  AskOutcome,
  AskOutcomeName,
  AskUserQuestionItem,
  TraceContext,
  UserQuestionErrorCode,
} from '../vocabulary/index.js'

/*
 * What a seam tells an observer of the human wait (DESIGN §13), in words of
 * its own: no tracing library is named here. `askseam/otel` implements it on
 * OpenTelemetry; anything else may implement it too.
 */

/**
 * Hooks a seam calls at the moments of an ask's life that an operator
 * watches: an ask admitted and settled in the process that asks, a
 * presentation opened and closed in the process whose provider shows it.
 * Pass one as `createUserQuestions({ telemetry })`; `openTelemetry()` from
 * `askseam/otel` is one.
 *
 * A hook that throws never breaks an ask: the seam catches it, reports the
 * first such failure once as a process warning (`AskseamTelemetry`, code
 * `ASKSEAM_TELEMETRY_FAILED`), and the ask goes on without that hook's part.
 */
export interface SeamTelemetry {
  /**
   * An ask was accepted and is about to be admitted. Called synchronously
   * inside `ask()`, so the caller's ambient context (e.g. the span active
   * there) is still current. Returns what watches this ask until it
   * settles, or nothing.
   */
  askStarted(ask: TelemetryAsk): AskTelemetry | undefined
  /**
   * This seam's provider is shown an ask, its own or another process's.
   * `traceContext` is the one the asking process kept with the ask, when it
   * kept one. Returns what watches this presentation until it closes.
   */
  presentationStarted(presentation: TelemetryPresentation): PresentationTelemetry | undefined
}

/** An ask as {@link SeamTelemetry.askStarted} sees it. */
export interface TelemetryAsk {
  /** The id the seam minted; a keyed ask that attaches to one held in the store settles under that one's id. */
  readonly askId: string
  /** The caller's own id for the ask (`AskUserQuestionRequest.key`), when it gave one. */
  readonly key?: string
  /** The id of the agent that asked, when an agent did. */
  readonly agentId?: string
  /** The validated questions. */
  readonly questions: readonly AskUserQuestionItem[]
}

/** Watches one ask of this process, from its admission to its settlement. */
export interface AskTelemetry {
  /**
   * The ask's trace context, captured as a plain carrier: the seam keeps it
   * with the ask in the store, and the process that presents the ask hands
   * it to {@link SeamTelemetry.presentationStarted}. Read once, before the
   * store write; a malformed one (see `readTraceContext`) is dropped.
   */
  readonly traceContext?: TraceContext
  /** The ask settled: exactly once, with what its callers get. */
  settled(settlement: TelemetrySettlement): void
}

/** How an ask settled, for {@link AskTelemetry.settled}. */
export interface TelemetrySettlement {
  /** The ask's id in the store. */
  readonly askId: string
  /** How it ended, in the one vocabulary of outcome names. */
  readonly outcome: AskOutcomeName
  /** The error's code, when the ask was rejected. */
  readonly errorCode?: UserQuestionErrorCode
  /** Who answered, when the outcome names them (DESIGN §12: `outcome.by`). */
  readonly responders?: readonly TelemetryResponder[]
  /**
   * `true` when the outcome is a key's, settled before this ask began and
   * replayed to it (DESIGN §10): nothing settled now.
   */
  readonly replayed?: true
}

/** Someone who answered an ask, and the surface they answered from (DESIGN §12). */
export interface TelemetryResponder {
  /** The stable id of the person (DESIGN §12). */
  readonly id: string
  /** `terminal`, `web`, `http`, `mcp`, or a surface of its own. */
  readonly via: string
}

/** A presentation as {@link SeamTelemetry.presentationStarted} sees it. */
export interface TelemetryPresentation {
  /** The ask shown, as the store knows it. */
  readonly askId: string
  /** The asking process's trace context, as it kept it with the ask; absent when it kept none. */
  readonly traceContext?: TraceContext
}

/** Watches one presentation, until it closes. */
export interface PresentationTelemetry {
  /**
   * The presentation closed: `accepted` (the provider's own settlement is
   * the outcome), `refused` (another was committed first), or `taken-down`
   * (the ask ended otherwise before the provider settled it).
   */
  ended(verdict: PresentationVerdict): void
}

/** How a presentation closed (see {@link PresentationTelemetry.ended}). */
export type PresentationVerdict = 'accepted' | 'refused' | 'taken-down'

/** The settlement the seam reports for an outcome, `replayed` when it was a key's, settled before. */
export function settlementOf(
  askId: string,
  outcome: AskOutcome,
  replayed = false,
): TelemetrySettlement {
  const settlement: { -readonly [K in keyof TelemetrySettlement]: TelemetrySettlement[K] } = {
    askId,
    outcome: outcomeName(outcome),
  }
  if (outcome.status === 'rejected') settlement.errorCode = outcome.error.code
  if (outcome.by !== undefined && outcome.by.length > 0) {
    settlement.responders = outcome.by.map(({ id, via }) => ({ id, via }))
  }
  if (replayed) settlement.replayed = true
  return settlement
}

/**
 * `telemetry`, checked (a TypeError for what cannot be telemetry), made unable to break an ask: each hook, and each handle it
 * returns, runs inside a `try`; a throw leaves that part out and is reported
 * once, the first time, as a process warning (a broken exporter would
 * otherwise warn on every ask).
 */
export function guardTelemetry(given: unknown): SeamTelemetry {
  const telemetry = checkTelemetry(given)
  let reported = false
  const attempt = <T>(work: () => T): T | undefined => {
    try {
      return work()
    } catch (error: unknown) {
      if (!reported) {
        reported = true
        process.emitWarning(
          `askseam: a telemetry hook threw; asks go on without it: ${describe(error)}`,
          {
            type: 'AskseamTelemetry',
            code: 'ASKSEAM_TELEMETRY_FAILED',
          },
        )
      }
      return undefined
    }
  }
  return {
    askStarted(ask) {
      const watch = attempt(() => telemetry.askStarted(ask))
      if (watch === undefined || watch === null) return undefined
      const traceContext = attempt(() => readTraceContext(watch.traceContext))
      return {
        ...(traceContext === undefined ? {} : { traceContext }),
        settled: (settlement) => void attempt(() => watch.settled(settlement)),
      }
    },
    presentationStarted(presentation) {
      const watch = attempt(() => telemetry.presentationStarted(presentation))
      if (watch === undefined || watch === null) return undefined
      return { ended: (verdict) => void attempt(() => watch.ended(verdict)) }
    },
  }
}

/** The open presentations of one seam and what watches each: opened when the provider is shown an ask, closed once. */
export interface PresentationWatches {
  /** The provider is shown `askId`; `traceContext` is read only when there is telemetry. */
  opened(askId: string, traceContext: () => TraceContext | undefined): void
  /** Its presentation ended; a second close of one ask is nothing. */
  closed(askId: string, verdict: PresentationVerdict): void
  /** Forgets every open presentation unclosed (a crash: a dead process ends nothing). */
  clear(): void
}

/** The {@link PresentationWatches} of a seam with `telemetry` (already guarded), or none. */
export function createPresentationWatches(
  telemetry: SeamTelemetry | undefined,
): PresentationWatches {
  const watches = new Map<string, PresentationTelemetry>()
  return {
    opened(askId, traceContextOf) {
      if (telemetry === undefined) return
      const traceContext = traceContextOf()
      const watch = telemetry.presentationStarted(
        traceContext === undefined ? { askId } : { askId, traceContext },
      )
      if (watch !== undefined) watches.set(askId, watch)
    },
    closed(askId, verdict) {
      const watch = watches.get(askId)
      watches.delete(askId)
      watch?.ended(verdict)
    },
    clear: () => watches.clear(),
  }
}

/** Refuses, as a TypeError, what cannot be telemetry: hooks that are not functions. */
function checkTelemetry(telemetry: unknown): SeamTelemetry {
  const hooks = telemetry as Partial<SeamTelemetry> | null
  if (
    typeof hooks !== 'object' ||
    hooks === null ||
    typeof hooks.askStarted !== 'function' ||
    typeof hooks.presentationStarted !== 'function'
  ) {
    throw new TypeError(
      'createUserQuestions: telemetry must have askStarted and presentationStarted functions (e.g. openTelemetry() from askseam/otel)',
    )
  }
  return hooks as SeamTelemetry
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unreadable error'
  }
}
