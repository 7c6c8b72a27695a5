import type { AskUserQuestionAnswer, AskUserQuestionItem } from '../../protocol/index.js'
import { UserQuestionError, toUserQuestionError } from '../../protocol/index.js'
import { questionnaireAnswer } from '../../machines/index.js'
import type { RelayOutcome } from '../../machines/index.js'
import { AskEndReasons } from '../../vocabulary/index.js'

/** Server → client: an ask is pending. Replayed, same `rpcId`, to every client that (re)connects. */
export interface QuestionRequestedFrame {
  type: 'question/requested'
  rpcId: string
  sessionId?: string
  questions: AskUserQuestionItem[]
  /** When the ask times out, epoch milliseconds; absent when it waits indefinitely. */
  deadline?: number
  /** On an ask that needs several approvals (DESIGN §12): how many, and who approved so far. */
  approvals?: ApprovalIds
}

/** An ask's approvals as the wire carries them: how many are required, and the ids of who gave them, in order. */
export interface ApprovalIds {
  required: number
  given: string[]
}

/**
 * Server → client, first on a connection whose token names a person (a
 * console with `users`): who the client is, so a page can say "signed in as"
 * and tell the approvals it gave from others'.
 */
export interface HelloFrame {
  type: 'hello'
  user: { id: string; name?: string; roles?: string[] }
}

/** Server → client: an ask ended, whatever ended it. Sent to every client that may see it. */
export interface QuestionResolvedFrame {
  type: 'question/resolved'
  rpcId: string
  sessionId?: string
  outcome: RelayOutcome
}

/**
 * Why a response was not accepted: `forbidden` when the client may not
 * answer the ask (its session, or the ask's `answerers`), `already-voted`
 * when its person's approval is counted already. The ask stays pending after
 * either.
 */
export type ReceiptReason = 'not-pending' | 'bad-response' | 'forbidden' | 'already-voted'

/** Server → client: what became of one `question/respond`. */
export interface ReceiptFrame {
  type: 'receipt'
  rpcId: string
  accepted: boolean
  reason?: ReceiptReason
  /** With `bad-response`: the rule the answer broke, to show the user. */
  message?: string
  /**
   * With an accepted approval kept as a vote: the count with it. The ask is
   * still pending (no `question/resolved` follows); it is sent again as
   * `question/requested` with the new count.
   */
  counted?: ApprovalIds
}

/**
 * The codes of the wire's `error` frame: a frame the relay could not take as a
 * `question/respond` at all, or a connection being throttled.
 */
export const RelayErrorCodes = {
  /** The frame is not JSON text. */
  INVALID_JSON: 'invalid-json',
  /** JSON, but not an object with a string `type`, or a `question/respond` without a string `rpcId` and a `result` object. */
  INVALID_FRAME: 'invalid-frame',
  /** A `type` the relay does not know. */
  UNKNOWN_TYPE: 'unknown-type',
  /** Too many frames in the rate window; frames are dropped until it passes. */
  RATE_LIMITED: 'rate-limited',
} as const

/** One of the codes of {@link RelayErrorCodes}. */
export type RelayErrorCode = (typeof RelayErrorCodes)[keyof typeof RelayErrorCodes]

/** Server → client: a frame could not be handled. The connection stays open. */
export interface ErrorFrame {
  type: 'error'
  code: RelayErrorCode
  message: string
}

/** Every frame the relay sends. */
export type ServerFrame =
  QuestionRequestedFrame | QuestionResolvedFrame | ReceiptFrame | ErrorFrame | HelloFrame

/** A client's verdict on one ask: an answer, or the dismissal of the whole batch. */
export type RespondResult =
  | { ok: true; value: AskUserQuestionAnswer }
  | { ok: false; error: { code: 'cancelled'; reason?: CancelReason } }

/**
 * Why a client dismissed a batch, passed on as the `ASK_CANCELLED` error's
 * `details.reason`: `discuss` when the user wants to talk about a plan
 * instead of answering. An optional addition to the pinned frame.
 */
export type CancelReason = 'dismissed' | 'discuss'

/** Client → server: the answer to, or dismissal of, one pending ask. */
export interface QuestionRespondFrame {
  type: 'question/respond'
  rpcId: string
  result: RespondResult
}

/** Every frame a client may send. */
export type ClientFrame = QuestionRespondFrame

/**
 * A `question/respond` as parsed at the edge: its `result` is still `unknown`,
 * because whether it answers the questions is the relay's call
 * (`validateAnswer` needs the pending ask, and an unknown `rpcId` is
 * `not-pending` whatever the result says).
 */
export interface ParsedRespondFrame {
  type: 'question/respond'
  rpcId: string
  result: unknown
}

/** What {@link parseClientFrame} makes of one frame's text. */
export type ParsedClientFrame =
  { ok: true; frame: ParsedRespondFrame } | { ok: false; error: ErrorFrame }

/** What a respond's `result` means, once checked by {@link interpretResult}. */
export type InterpretedResult =
  | { kind: 'answer'; value: unknown }
  | {
      kind: 'cancel'
      reason?: CancelReason
      /**
       * The `ASK_CANCELLED` the seam should get: the very error the terminal
       * gives for the same choice (a web "Discuss" and a terminal "Discuss"
       * read the same), `details.reason` set.
       */
      error: UserQuestionError
    }
  | { kind: 'invalid'; message: string }

function errorFrame(code: RelayErrorCode, message: string): ErrorFrame {
  return { type: 'error', code, message }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Parses one client frame's text: JSON, an object, a known `type`, a string `rpcId`. */
export function parseClientFrame(data: string): ParsedClientFrame {
  let raw: unknown
  try {
    raw = JSON.parse(data)
  } catch {
    return {
      ok: false,
      error: errorFrame(
        RelayErrorCodes.INVALID_JSON,
        'the frame is not JSON; send one JSON object per frame',
      ),
    }
  }
  if (!isObject(raw) || typeof raw.type !== 'string') {
    return {
      ok: false,
      error: errorFrame(
        RelayErrorCodes.INVALID_FRAME,
        'a frame must be a JSON object with a string "type"',
      ),
    }
  }
  if (raw.type !== 'question/respond') {
    return {
      ok: false,
      error: errorFrame(
        RelayErrorCodes.UNKNOWN_TYPE,
        `unknown frame type ${JSON.stringify(raw.type.slice(0, 64))}; clients send only "question/respond"`,
      ),
    }
  }
  if (typeof raw.rpcId !== 'string' || raw.rpcId === '') {
    return {
      ok: false,
      error: errorFrame(
        RelayErrorCodes.INVALID_FRAME,
        'question/respond needs a non-empty string rpcId',
      ),
    }
  }
  return { ok: true, frame: { type: 'question/respond', rpcId: raw.rpcId, result: raw.result } }
}

/** Reads a respond's `result`: `{ ok: true, value }`, `{ ok: false, error: { code: 'cancelled' } }`, or neither. */
export function interpretResult(result: unknown): InterpretedResult {
  if (isObject(result) && result.ok === true) return { kind: 'answer', value: result.value }
  if (
    isObject(result) &&
    result.ok === false &&
    isObject(result.error) &&
    result.error.code === 'cancelled'
  ) {
    const reason = result.error.reason
    if (reason === undefined)
      return { kind: 'cancel', error: cancellationError(AskEndReasons.DISMISSED) }
    return reason === AskEndReasons.DISMISSED || reason === AskEndReasons.DISCUSS
      ? { kind: 'cancel', reason, error: cancellationError(reason) }
      : {
          kind: 'invalid',
          message: 'a cancel\'s reason must be "dismissed" or "discuss", or left out',
        }
  }
  return {
    kind: 'invalid',
    message:
      'result must be { ok: true, value: { answers } } or { ok: false, error: { code: "cancelled" } }',
  }
}

/**
 * The `ASK_CANCELLED` error for a dismissal from a UI, made by the same rule
 * the terminal uses (`questionnaireAnswer`), so every UI's cancel reads alike.
 */
export function cancellationError(reason: CancelReason): UserQuestionError {
  try {
    questionnaireAnswer({ status: 'cancelled', reason })
  } catch (error: unknown) {
    return toUserQuestionError(error)
  }
  // questionnaireAnswer always throws for a cancellation; this only satisfies the checker.
  return new UserQuestionError('The user dismissed the questions', 'ASK_CANCELLED', {
    details: { reason },
  })
}
