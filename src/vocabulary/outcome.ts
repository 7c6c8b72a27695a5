import { UserQuestionError, isErrorCode } from './errors.js'
import type { UserQuestionErrorCode } from './errors.js'
import type { AskUserQuestionAnswer, Responder } from './types.js'

/*
 * One outcome vocabulary (DESIGN §6): how an ask ended, as data. The machines
 * decide outcomes, stores keep them, UIs and callers read them; each reads and
 * writes them through this file alone.
 */

/** A `UserQuestionError` as data: enough to rebuild one with the same code, message and details. */
export interface AskErrorData {
  code: UserQuestionErrorCode
  message: string
  details?: Record<string, unknown>
}

/** How an ask ended, as data: what a store commits and what every seam sharing it follows. */
export type AskOutcome =
  | { status: 'answered'; answer: AskUserQuestionAnswer; by?: Responder[] }
  | { status: 'rejected'; error: AskErrorData; by?: Responder[] }

/** An outcome that is an error. */
export type AskRejection = Extract<AskOutcome, { status: 'rejected' }>

/**
 * Every `details.reason` askseam writes, for UIs and callers to switch on:
 * why an ask was refused or ended, why a presentation was taken down, why a provider's
 * answer was refused (`BAD_ANSWER`) while the ask stays pending, and why one
 * of askseam's own providers could not ask (each entry names its code).
 */
export const AskEndReasons = {
  /** `ASK_ABORTED`: the caller's signal aborted. */
  CALLER_ABORTED: 'caller-aborted',
  /** `ASK_ABORTED`: the provider went away and nothing took the ask over. */
  PROVIDER_DISPOSED: 'provider-disposed',
  /** `ASK_ABORTED`: another settlement of the ask was committed first. */
  SETTLED_ELSEWHERE: 'settled-elsewhere',
  /** `ASK_ABORTED`: the process that asked is gone (its lease lapsed). */
  OWNER_GONE: 'owner-gone',
  /** `ASK_ABORTED`: the web relay holding the ask was disposed. */
  RELAY_DISPOSED: 'relay-disposed',
  /** `ASK_CANCELLED`: the person dismissed the questions. */
  DISMISSED: 'dismissed',
  /** `ASK_CANCELLED`: the person chose to discuss the plan instead of answering (plan review). */
  DISCUSS: 'discuss',
  /** `CALLER_NOT_LIVE`: the seam requires the asking agent, and the ask names none. */
  NO_AGENT: 'no-agent',
  /** `CALLER_NOT_LIVE`: the ask names an agent, and the seam has no registry to check it with. */
  NO_REGISTRY: 'no-registry',
  /** `CALLER_NOT_LIVE`: the agent the ask names is not the registry's live instance. */
  NOT_LIVE: 'not-live',
  /** `BAD_ANSWER`: the responder is not among the ask's `answerers` (or the provider named none). */
  FORBIDDEN: 'forbidden',
  /** `BAD_ANSWER`: the responder's approval is counted already. */
  ALREADY_VOTED: 'already-voted',
  /** `PROVIDER_FAILED`: the terminal provider's input is not a TTY. */
  NOT_A_TTY: 'not-a-tty',
  /** `ASK_ABORTED`: the terminal provider's input closed. */
  INPUT_CLOSED: 'input-closed',
  /** `PROVIDER_FAILED`: the MCP provider has no connected client. */
  MCP_NOT_CONNECTED: 'mcp-not-connected',
  /** `PROVIDER_FAILED`: the MCP client cannot answer an elicitation (or not in this protocol version). */
  ELICITATION_UNSUPPORTED: 'elicitation-unsupported',
  /** `ASK_TIMEOUT`: the MCP client had not answered the elicitation at the ask's deadline. */
  MCP_REQUEST_TIMEOUT: 'mcp-request-timeout',
  /** `ASK_ABORTED`: the MCP client disconnected before it answered. */
  CLIENT_DISCONNECTED: 'client-disconnected',
  /** `PROVIDER_FAILED`: the MCP client answered the elicitation with an error (`details.mcpCode`). */
  CLIENT_ERROR: 'client-error',
} as const

/** One of {@link AskEndReasons}. */
export type AskEndReason = (typeof AskEndReasons)[keyof typeof AskEndReasons]

const rejected = (
  code: UserQuestionErrorCode,
  message: string,
  details?: Record<string, unknown>,
): AskRejection => ({
  status: 'rejected',
  error: details === undefined ? { code, message } : { code, message, details },
})

/** The message of {@link timeoutOutcome}; stores that build the outcome in SQL write the same. */
export const TIMEOUT_MESSAGE = 'nobody answered before the deadline'

/** The outcome of a caller's abort (the live reason is kept beside the ask as `cause`). */
export const callerAbortOutcome = (): AskRejection =>
  rejected('ASK_ABORTED', 'the caller aborted the ask', { reason: AskEndReasons.CALLER_ABORTED })

/** The outcome of an ask no provider anywhere could take. */
export const noProviderOutcome = (): AskRejection =>
  rejected('NO_PROVIDER', 'no question provider is registered to ask the user')

/** The outcome of an ask whose seam closed while it was pending. */
export const seamClosedOutcome = (): AskRejection =>
  rejected('SEAM_CLOSED', 'the seam was closed while the ask was pending')

/** The outcome of an ask whose provider went away with nothing to take it over. */
export const providerGoneOutcome = (): AskRejection =>
  rejected('ASK_ABORTED', 'the provider was disposed while the ask was pending', {
    reason: AskEndReasons.PROVIDER_DISPOSED,
  })

/** The outcome of an ask whose deadline passed: `details.deadline` is the original one. */
export const timeoutOutcome = (ask: {
  deadline?: number | undefined
  startedAt: number
}): AskRejection =>
  rejected('ASK_TIMEOUT', TIMEOUT_MESSAGE, { deadline: ask.deadline, startedAt: ask.startedAt })

/** The outcome of a keyless ask whose process died. */
export const ownerGoneOutcome = (): AskRejection =>
  rejected('ASK_ABORTED', 'the process that asked is gone', { reason: AskEndReasons.OWNER_GONE })

/** The outcome of an ask whose store could not be written or read. */
export const storeFailedOutcome = (): AskRejection =>
  rejected('STORE_FAILED', 'the ask store could not be read or written')

/** The outcome of an ask that failed inside the seam itself (a fault, not the provider's). */
export const seamFaultOutcome = (): AskRejection =>
  rejected('PROVIDER_FAILED', 'the ask failed inside the seam')

/**
 * The refusal a presentation hears when another settlement was committed
 * first. With the committed outcome, `details.ending` names how the ask
 * ended ({@link AskOutcomeName}), so a UI showing it elsewhere tells its
 * people the truth (a relay's `question/resolved`); without one (the store
 * no longer holds the ask) nothing is claimed. Read it with {@link endedAs}.
 */
export const settledElsewhereOutcome = (committed?: AskOutcome): AskRejection =>
  rejected(
    'ASK_ABORTED',
    'another settlement of this ask was committed first',
    committed === undefined
      ? { reason: AskEndReasons.SETTLED_ELSEWHERE }
      : { reason: AskEndReasons.SETTLED_ELSEWHERE, ending: outcomeName(committed) },
  )

/** The refusal a presentation hears when its provider is disposed and the ask waits for the next one. */
export const handedOverOutcome = (): AskRejection =>
  rejected('ASK_ABORTED', 'the provider was disposed; the ask waits for the next one', {
    reason: AskEndReasons.PROVIDER_DISPOSED,
    handOver: true,
  })

/** Whether an ending is a hand-over: the presentation's provider went, and the ask waits for the next one. */
export const isHandOver = (error: AskErrorData): boolean => error.details?.handOver === true

/**
 * A key's ask with other questions (DESIGN §10), or other answerers or
 * approvals (§12), than the ones asked again with it.
 */
export const otherAskOutcome = (askId: string, differs: 'questions' | 'policy'): AskRejection =>
  rejected(
    'INVALID_REQUEST',
    differs === 'questions'
      ? 'this key belongs to an ask with other questions'
      : 'this key belongs to an ask with other answerers or approvals',
    { field: 'key', askId, differs },
  )

/** Whether an outcome is the timeout (`ASK_TIMEOUT`): the one outcome a store still takes past a deadline. */
export function isTimeoutOutcome(outcome: AskOutcome): boolean {
  return outcome.status === 'rejected' && outcome.error.code === 'ASK_TIMEOUT'
}

/**
 * The codes a provider or a UI decides (its own settlement); any other
 * rejection was decided by the caller, the clock, the seam or the store.
 */
const DECIDED_BY_A_UI: ReadonlySet<UserQuestionErrorCode> = new Set([
  'ASK_CANCELLED',
  'BAD_ANSWER',
  'PROVIDER_FAILED',
])

/**
 * Outcomes the human or the clock decided, replayed to every later `ask`
 * with the key. The others (the caller's own abort, `NO_PROVIDER`,
 * `STORE_FAILED`, a closed seam, a dead owner) say nothing about the human:
 * the next `ask` with that key starts a new ask.
 */
export function isReplayedOutcome(outcome: AskOutcome): boolean {
  if (outcome.status === 'answered') return true
  return outcome.error.code === 'ASK_TIMEOUT' || DECIDED_BY_A_UI.has(outcome.error.code)
}

/**
 * Why a presentation that did not win comes down: an outcome some UI
 * decided (an answer, a cancel, a misfit answer) is `settled-elsewhere`;
 * one the caller, the clock, the seam or a dead owner decided is that
 * ending's own error (DESIGN §10).
 */
export function presentationEnding(outcome: AskOutcome): AskRejection {
  if (outcome.status === 'answered' || DECIDED_BY_A_UI.has(outcome.error.code)) {
    return settledElsewhereOutcome(outcome)
  }
  return outcome
}

/** The final state of an ask an outcome leads to. */
export type AskEnding = 'answered' | 'cancelled' | 'aborted' | 'timedOut' | 'failed'

/** The final state an outcome leads to. */
export function endingOf(outcome: AskOutcome): AskEnding {
  if (outcome.status === 'answered') return 'answered'
  switch (outcome.error.code) {
    case 'ASK_CANCELLED':
      return 'cancelled'
    case 'ASK_TIMEOUT':
      return 'timedOut'
    case 'ASK_ABORTED':
    case 'SEAM_CLOSED':
      return 'aborted'
    default:
      return 'failed'
  }
}

/**
 * How an ask ended, in the words an operator reads (span attributes, metric
 * labels): `timed-out` where the final state is `timedOut`.
 */
export type AskOutcomeName = 'answered' | 'cancelled' | 'timed-out' | 'aborted' | 'failed'

const OUTCOME_NAMES: Readonly<Record<AskEnding, AskOutcomeName>> = {
  answered: 'answered',
  cancelled: 'cancelled',
  timedOut: 'timed-out',
  aborted: 'aborted',
  failed: 'failed',
}

/** The name of how an outcome ended (see {@link AskOutcomeName}); the one mapping from outcomes to these words. */
export function outcomeName(outcome: AskOutcome): AskOutcomeName {
  return OUTCOME_NAMES[endingOf(outcome)]
}

const isOutcomeName = (value: unknown): value is AskOutcomeName =>
  Object.values(OUTCOME_NAMES).includes(value as AskOutcomeName)

/**
 * How the ask really ended, read from the error a presentation of it was
 * ended with (its provider's `signal.reason`): a `settled-elsewhere` error
 * names the committed outcome in `details.ending` (see
 * {@link settledElsewhereOutcome}); any other ending is its own outcome. A
 * `settled-elsewhere` without a readable ending reads as `aborted`.
 */
export function endedAs(error: AskErrorData): AskOutcomeName {
  const details = error.details
  if (details?.reason === AskEndReasons.SETTLED_ELSEWHERE && isOutcomeName(details.ending)) {
    return details.ending
  }
  return outcomeName({ status: 'rejected', error })
}

/**
 * A `UserQuestionError` as data. Reads each field once and copies `details`,
 * so a hostile error cannot change what is kept after the fact.
 */
export function errorData(error: UserQuestionError): AskErrorData {
  const { code, message, details } = error
  return details === undefined ? { code, message } : { code, message, details: { ...details } }
}

/**
 * The error an outcome's data stands for: same code, message and details,
 * with `cause` when the live one is known. A code outside the table (a row
 * written by a newer askseam) reads as `PROVIDER_FAILED`, as DESIGN §3 reads
 * a provider's unknown code.
 */
export function outcomeError(error: AskErrorData, cause?: unknown): UserQuestionError {
  const known = isErrorCode(error.code)
  const options: { details?: Record<string, unknown>; cause?: unknown } = {}
  if (error.details !== undefined) options.details = error.details
  if (cause !== undefined) options.cause = cause
  return new UserQuestionError(error.message, known ? error.code : 'PROVIDER_FAILED', options)
}
