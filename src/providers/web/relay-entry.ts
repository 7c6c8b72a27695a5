import { createActor } from 'xstate'
import type { Actor } from 'xstate'
import { relayAskMachine } from '../../machines/index.js'
import type { RelayAskEvent, RelayOutcome, RelayResponse } from '../../machines/index.js'
import { errorData, toUserQuestionError, validateAnswer } from '../../protocol/index.js'
import type {
  AskUserQuestionItem,
  ProviderRequest,
  ProviderSettlement,
} from '../../protocol/index.js'
import { hasApproved, isApproval } from '../../vocabulary/index.js'
import type { ApprovalCount, ProviderAnswer, Responder } from '../../vocabulary/index.js'
import { interpretResult } from './frames.js'
import type {
  ApprovalIds,
  QuestionRequestedFrame,
  ReceiptFrame,
  ReceiptReason,
  ServerFrame,
} from './frames.js'

/*
 * One ask as the relay (relay.ts) holds it: its `relayAskMachine` and what
 * is kept beside it (the provider call showing it, its frames), how a
 * client's response is read at the relay's edge, and the frames and events
 * an entry makes.
 */

type RelayAskActor = Actor<typeof relayAskMachine>

/** One ask the relay holds: its machine, and the live handles and frames kept beside it. */
export interface Entry {
  rpcId: string
  /**
   * This entry's own name: should the seam present an ask under the same
   * `rpcId` while its entry is still busy, a new entry takes the table, and
   * what waits on the old entry must not be told about the new one.
   */
  serial: string
  sessionId: string | undefined
  questions: AskUserQuestionItem[]
  /** Who may answer; absent: anyone `authorize` lets see the session. */
  answerers: readonly string[] | undefined
  /** The approvals given so far, on an ask that needs several. */
  approvals: ApprovalCount | undefined
  actor: RelayAskActor
  /**
   * The provider call showing the ask now: the one the machine's
   * `provider.settled` settles. The seam presents an ask that counts
   * approvals again after each vote; each presentation is a call of its own.
   */
  call: ProviderCall
  /** Stops following each presentation's signal: run once the ask ends here. */
  unfollow: (() => void)[]
  /** The `question/requested` frame, and its text, serialised once for every client and every replay. */
  frame: QuestionRequestedFrame
  requested: string
}

/** One presentation's provider call, as the relay keeps it beside its ask's machine. */
export interface ProviderCall {
  resolve(answer: ProviderAnswer): void
  reject(error: unknown): void
}

/** The text of a receipt frame: accepted when `reason` is absent. */
export const receipt = (
  rpcId: string,
  reason?: ReceiptReason,
  message?: string,
  counted?: ApprovalIds,
): string => {
  const frame: ReceiptFrame =
    reason === undefined
      ? { type: 'receipt', rpcId, accepted: true }
      : { type: 'receipt', rpcId, accepted: false, reason }
  if (message !== undefined) frame.message = message
  if (counted !== undefined) frame.counted = counted
  return JSON.stringify(frame)
}

/** An approval count as the wire carries it: the approvers' ids. */
export const approvalIds = ({ required, given }: ApprovalCount): ApprovalIds => ({
  required,
  given: given.map((responder) => responder.id),
})

/** A server frame as the wire carries it. */
export const frameText = (frame: ServerFrame): string => JSON.stringify(frame)

/** The seam's verdict on the relay's own settlement, as its ask machine hears it. */
export function settlementEvent(verdict: ProviderSettlement): RelayAskEvent {
  switch (verdict.status) {
    case 'accepted':
      return { type: 'settlement.accepted' }
    case 'counted':
      return { type: 'settlement.counted', approvals: verdict.approvals }
    case 'refused':
      return { type: 'settlement.refused', error: errorData(verdict.error) }
  }
}

/** The `question/resolved` frame every client that may see an ended ask is sent. */
export function resolvedFrame({ rpcId, sessionId }: Entry, outcome: RelayOutcome): string {
  return frameText(
    sessionId === undefined
      ? { type: 'question/resolved', rpcId, outcome }
      : { type: 'question/resolved', rpcId, sessionId, outcome },
  )
}

/**
 * A client's response read at the relay's edge: who may answer, what the
 * frame says, whether the answer fits, and whether it is a second approval
 * by the same person (the seam would refuse it: the relay says so at once).
 * `by` is the connection's person; whatever the frame says of itself is not read.
 */
export function readResponse(
  allowed: boolean,
  { questions, approvals }: Entry,
  result: unknown,
  by: Responder | undefined,
): RelayResponse {
  if (!allowed) return { kind: 'forbidden' }
  const interpreted = interpretResult(result)
  if (interpreted.kind === 'invalid') return interpreted
  if (interpreted.kind === 'cancel') return { kind: 'cancel', error: errorData(interpreted.error) }
  try {
    const answer = validateAnswer(questions, interpreted.value)
    if (hasApproved(approvals?.given, by) && isApproval(questions, answer)) {
      return { kind: 'already-voted' }
    }
    return by === undefined ? { kind: 'answer', answer } : { kind: 'answer', answer, by }
  } catch (error: unknown) {
    const { message, details } = toUserQuestionError(error)
    return details === undefined
      ? { kind: 'invalid', message }
      : { kind: 'invalid', message, details }
  }
}

/** The `question/requested` frame every client is sent for one presentation of an ask. */
export function requestedFrame(request: ProviderRequest): QuestionRequestedFrame {
  const { askId: rpcId, questions, deadline, approvals } = request
  const sessionId = request.agent?.id
  return {
    type: 'question/requested',
    rpcId,
    ...(sessionId === undefined ? {} : { sessionId }),
    questions,
    ...(deadline === undefined ? {} : { deadline }),
    ...(approvals === undefined ? {} : { approvals: approvalIds(approvals) }),
  }
}

/** A new ask's entry: its `relayAskMachine`, the call showing it, and the frame every client is sent. */
export function entryFor(request: ProviderRequest, serial: string, call: ProviderCall): Entry {
  const { askId: rpcId, questions, answerers, approvals } = request
  const sessionId = request.agent?.id
  const actor = createActor(relayAskMachine, {
    input:
      sessionId === undefined
        ? { askId: rpcId, questions }
        : { askId: rpcId, sessionId, questions },
  })
  const frame = requestedFrame(request)
  return {
    rpcId,
    serial,
    sessionId,
    questions,
    answerers,
    approvals,
    actor,
    call,
    unfollow: [],
    frame,
    requested: frameText(frame),
  }
}
