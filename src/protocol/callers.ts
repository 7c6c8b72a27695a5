import type { Actor } from 'xstate'
import type { AskCause, AskOutput, askMachine } from '../machines/index.js'
import { AskEndReasons, callerAbortOutcome, outcomeError } from '../vocabulary/index.js'
import type {
  Agent,
  AskErrorData,
  AskUserQuestionAnswer,
  UserQuestionError,
} from '../vocabulary/index.js'
import { createAbortFanout } from './abort-fanout.js'
import type { AskTelemetry } from './telemetry.js'

/*
 * What sits beside an ask's actor (DESIGN §6: the machine keeps data): its
 * callers' promises and signals, and the live errors they get.
 */

/** One caller waiting on an ask. */
export interface Caller {
  resolve(answer: AskUserQuestionAnswer): void
  reject(error: UserQuestionError): void
  signal: AbortSignal | undefined
  ask: AskHandle
}

/** An ask callers of this seam wait on, and the live values beside its actor. */
export interface AskHandle {
  actor: Actor<typeof askMachine>
  /** The ask's id in the store: minted here, or the held ask's once the machine follows it. */
  askId: string
  key: string | undefined
  agent: Agent | undefined
  callers: Caller[]
  /** The live causes an error of this ask may carry (see `AskCause`). */
  causes: { caller?: unknown; provider?: UserQuestionError; store?: unknown }
  /** The last error made for this ask: the provider's signal and the caller get the same object. */
  error: UserQuestionError | undefined
  /** What watches this ask for the seam's telemetry, if it has any. */
  telemetry?: AskTelemetry | undefined
}

/**
 * Callers' signals, one listener per signal however many asks share it. The
 * last caller of an ask to abort aborts the ask; an earlier one leaves it.
 */
export function createCallerSignals() {
  const signals = createAbortFanout<Caller>((caller, reason) => aborted(caller, reason))

  const unwatch = (caller: Caller) => {
    if (caller.signal === undefined) return
    signals.unwatch(caller.signal, caller)
    caller.signal = undefined
  }

  const aborted = (caller: Caller, reason: unknown) => {
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

  return {
    /** Attaches a caller to the ask; throws for a signal that cannot be listened to. */
    join(
      handle: AskHandle,
      resolve: Caller['resolve'],
      reject: Caller['reject'],
      signal?: AbortSignal,
    ) {
      // Built whole in one literal: a spread plus a field gives V8 a hidden class per caller.
      const caller: Caller = { resolve, reject, signal, ask: handle }
      if (signal !== undefined) signals.watch(signal, caller)
      handle.callers.push(caller)
    },
    /** Hands every caller of the ask what its machine decided. */
    settle(handle: AskHandle, output: AskOutput) {
      const callers = handle.callers
      handle.callers = []
      for (const caller of callers) unwatch(caller)
      for (const caller of callers) {
        if (output.status === 'answered') caller.resolve(output.answer)
        else caller.reject(errorOf(handle, output.error, output.cause))
      }
    },
    /** Drops the ask's callers unheard (a crash). */
    drop(handle: AskHandle) {
      for (const caller of handle.callers) unwatch(caller)
      handle.callers = []
    },
  }
}

/** Keeps a live cause beside the ask, where this seam runs it: what its error carries if the ask ends with it. */
export function keepCause(
  handle: AskHandle | undefined,
  kind: 'provider' | 'store',
  error: unknown,
): void {
  if (handle === undefined) return
  if (kind === 'provider') handle.causes.provider = error as UserQuestionError
  else handle.causes.store = error
}

/**
 * The live error for an ask's error data: made once, so the provider's
 * signal and the caller share it. For an ask no caller here waits on, a
 * fresh one.
 */
export function errorOf(
  handle: AskHandle | undefined,
  data: AskErrorData,
  cause?: AskCause,
): UserQuestionError {
  if (handle === undefined) return outcomeError(data)
  const last = handle.error
  if (last !== undefined && last.code === data.code && last.message === data.message) return last
  const provider = handle.causes.provider
  let error: UserQuestionError
  // The provider's own error, where it is what the ask ended with (told to the provider first, or not).
  if (
    (cause === 'provider' || cause === undefined) &&
    provider !== undefined &&
    provider.code === data.code &&
    provider.message === data.message
  ) {
    error = provider
  } else {
    const live =
      cause === 'store' || (cause === undefined && data.code === 'STORE_FAILED')
        ? handle.causes.store
        : data.details?.reason === AskEndReasons.CALLER_ABORTED
          ? handle.causes.caller
          : undefined
    error = outcomeError(data, live)
  }
  handle.error = error
  return error
}
