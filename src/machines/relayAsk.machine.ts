import { assign, emit, setup } from 'xstate'
import { AskEndReasons, isHandOver } from '../vocabulary/index.js'
import type {
  ApprovalCount,
  AskErrorData,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  Responder,
} from '../vocabulary/index.js'

/** How a relayed ask ended, as the wire's `question/resolved` names it. */
export type RelayOutcome = 'answered' | 'cancelled' | 'aborted' | 'timed-out'

/** Why a client's response was not accepted (the wire's receipt reasons). */
export type RelayReceiptReason = 'not-pending' | 'bad-response' | 'forbidden' | 'already-voted'

/**
 * A client's response as the relay read it at its edge: the frame parsed, the
 * answer checked, who gave it (`by`, from the client's connection, never its
 * frame), and whether that person may answer (`forbidden`) or approved
 * already (`already-voted`).
 */
export type RelayResponse =
  | { kind: 'answer'; answer: AskUserQuestionAnswer; by?: Responder }
  | { kind: 'cancel'; error: AskErrorData }
  | { kind: 'invalid'; message: string; details?: AskErrorData['details'] }
  | { kind: 'forbidden' }
  | { kind: 'already-voted' }

/** A response the seam settles its provider promise with: an answer or a cancel. */
export type RelaySettlingResponse = Extract<RelayResponse, { kind: 'answer' | 'cancel' }>

/** What a relayed ask starts from: the seam's `askId` doubles as the wire's `rpcId`. */
export interface RelayAskInput {
  askId: string
  /** The asking agent's id, when an agent asks. */
  sessionId?: string
  questions: AskUserQuestionItem[]
}

/** The relayed ask's memory: data only. */
export interface RelayAskContext {
  askId: string
  sessionId: string | undefined
  questions: AskUserQuestionItem[]
  /** The client whose response the seam is committing, once there is one. */
  responder: string | undefined
  /** What that response was. */
  responded: 'answer' | 'cancel' | undefined
  /** How the ask ended; `undefined` while it is pending, and for an ask handed over. */
  outcome: RelayOutcome | undefined
}

/** A client's response as its ask hears it: one event per kind (`response.answer`, `response.invalid`, …). */
export type RelayResponseEvent = {
  [K in RelayResponse['kind']]: {
    type: `response.${K}`
    clientId: string
    response: Extract<RelayResponse, { kind: K }>
  }
}[RelayResponse['kind']]

/** The event that tells a relayed ask of `response`, given by the client `clientId`. */
export function responseEvent(clientId: string, response: RelayResponse): RelayResponseEvent {
  return { type: `response.${response.kind}`, clientId, response } as RelayResponseEvent
}

/**
 * What reaches a relayed ask: a client's response (one event per kind, see
 * {@link responseEvent}); the seam's verdict on the response this relay
 * settled with (`settlement.*`, one event per verdict of
 * `ProviderRequest.settlement`); and the end of the ask for any other reason
 * (`ask.ended`, from the request's signal: its reason's data).
 */
export type RelayAskEvent =
  | RelayResponseEvent
  /** The store committed the response. */
  | { type: 'settlement.accepted' }
  /** The store kept the response, an approval, as a vote; the ask is still pending. */
  | { type: 'settlement.counted'; approvals: ApprovalCount }
  /** The seam refused the response. */
  | { type: 'settlement.refused'; error: AskErrorData }
  | { type: 'ask.ended'; error: AskErrorData }

/** What a relayed ask tells the relay. */
export type RelayAskEmitted =
  /**
   * A receipt for one client: accepted when `reason` is absent. A
   * `bad-response` carries the rule the answer broke: `message`, and the
   * validation error's `details` when it had any.
   */
  | {
      type: 'receipt'
      clientId: string
      reason?: RelayReceiptReason
      message?: string
      details?: AskErrorData['details']
      /** With an accepted approval kept as a vote: the count with it. */
      counted?: ApprovalCount
    }
  /** The relay settles the seam's provider promise with the client's answer or cancel. */
  | { type: 'provider.settled'; response: RelaySettlingResponse }

/**
 * How one relayed ask ended: what `question/resolved` says, or nothing for an
 * ask that did not end here: handed over, or still pending after a vote was
 * counted or a responder refused (the seam presents it again).
 */
export interface RelayAskOutput {
  outcome: RelayOutcome | undefined
}

/** The `details.reason` of a refusal that leaves the ask pending: the responder's, not the answer's. */
function responderRefusal(error: AskErrorData): 'forbidden' | 'already-voted' | undefined {
  if (error.code !== 'BAD_ANSWER') return undefined
  const reason = error.details?.reason
  return reason === AskEndReasons.FORBIDDEN || reason === AskEndReasons.ALREADY_VOTED
    ? reason
    : undefined
}

function outcomeOfEnding(error: AskErrorData): RelayOutcome | undefined {
  if (isHandOver(error)) return undefined
  return error.code === 'ASK_TIMEOUT' ? 'timed-out' : 'aborted'
}

/**
 * One ask the relay holds for its connected clients (DESIGN §7), deciding
 * its own receipts. The first valid response settles the seam's provider
 * promise; its client hears "accepted" (and every client "resolved") only
 * once the seam says the store committed it; a response while one is being
 * committed, or after the ask ended, is `not-pending`; an invalid one is
 * `bad-response` and the ask stays pending; one from a client that may not
 * see the ask is `forbidden`, a second approval by the same person
 * `already-voted`. An ask taken away for a hand-over ends without an outcome:
 * it did not end, another provider shows it. So does one whose response the
 * seam counted as a vote (its client hears "accepted", with the count) or
 * refused for who gave it (`forbidden`, `already-voted`): the ask is still
 * pending and the seam presents it again (DESIGN §12).
 */
export const relayAskMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as RelayAskContext,
    events: {} as RelayAskEvent,
    input: {} as RelayAskInput,
    output: {} as RelayAskOutput,
    emitted: {} as RelayAskEmitted,
  },
  guards: {
    respondedCancel: ({ context }) => context.responded === 'cancel',
    isResponderRefusal: (_, refused: { error: AskErrorData }) =>
      responderRefusal(refused.error) !== undefined,
    isMisfit: (_, refused: { error: AskErrorData }) => refused.error.code === 'BAD_ANSWER',
  },
  actions: {
    refuse: emit((_, { clientId, reason }: { clientId: string; reason: RelayReceiptReason }) => ({
      type: 'receipt' as const,
      clientId,
      reason,
    })),
    refuseInvalid: emit(
      (
        _,
        {
          clientId,
          response,
        }: { clientId: string; response: Extract<RelayResponse, { kind: 'invalid' }> },
      ) => ({
        type: 'receipt' as const,
        clientId,
        reason: 'bad-response' as const,
        message: response.message,
        ...(response.details === undefined ? {} : { details: response.details }),
      }),
    ),
    recordResponder: assign(
      (_, { clientId, response }: { clientId: string; response: RelaySettlingResponse }) => ({
        responder: clientId,
        responded: response.kind,
      }),
    ),
    settleProvider: emit((_, { response }: { response: RelaySettlingResponse }) => ({
      type: 'provider.settled' as const,
      response,
    })),
    acceptResponder: emit(({ context }) => ({
      type: 'receipt' as const,
      clientId: context.responder as string,
    })),
    acceptVote: emit(({ context }, counted: { approvals: ApprovalCount }) => ({
      type: 'receipt' as const,
      clientId: context.responder as string,
      counted: counted.approvals,
    })),
    tellResponderRefused: emit(({ context }, { error }: { error: AskErrorData }) => ({
      type: 'receipt' as const,
      clientId: context.responder as string,
      // The guard let only a responder's refusal through.
      reason: responderRefusal(error) ?? ('forbidden' as const),
    })),
    tellResponderMisfit: emit(({ context }, { error }: { error: AskErrorData }) => ({
      type: 'receipt' as const,
      clientId: context.responder as string,
      reason: 'bad-response' as const,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    })),
    tellResponderNotPending: emit(({ context }) => ({
      type: 'receipt' as const,
      clientId: context.responder as string,
      reason: 'not-pending' as const,
    })),
    recordAnswered: assign({ outcome: 'answered' as const }),
    recordCancelled: assign({ outcome: 'cancelled' as const }),
    recordEnding: assign((_, ended: { error: AskErrorData }) => ({
      outcome: outcomeOfEnding(ended.error),
    })),
    recordMisfit: assign({ outcome: 'aborted' as const }),
  },
}).createMachine({
  id: 'relayAsk',
  context: ({ input }) => ({
    askId: input.askId,
    sessionId: input.sessionId,
    questions: input.questions,
    responder: undefined,
    responded: undefined,
    outcome: undefined,
  }),
  initial: 'pending',
  output: ({ context }) => ({ outcome: context.outcome }),
  states: {
    pending: {
      on: {
        'response.forbidden': {
          actions: {
            type: 'refuse',
            params: ({ event }) => ({ clientId: event.clientId, reason: 'forbidden' }),
          },
        },
        'response.already-voted': {
          actions: {
            type: 'refuse',
            params: ({ event }) => ({ clientId: event.clientId, reason: 'already-voted' }),
          },
        },
        'response.invalid': {
          actions: { type: 'refuseInvalid', params: ({ event }) => event },
        },
        'response.answer': {
          target: 'committing',
          actions: [
            { type: 'recordResponder', params: ({ event }) => event },
            { type: 'settleProvider', params: ({ event }) => event },
          ],
        },
        'response.cancel': {
          target: 'committing',
          actions: [
            { type: 'recordResponder', params: ({ event }) => event },
            { type: 'settleProvider', params: ({ event }) => event },
          ],
        },
        'ask.ended': {
          target: 'ended',
          actions: { type: 'recordEnding', params: ({ event }) => event },
        },
      },
    },
    // The seam commits the response: its client waits for the verdict.
    committing: {
      on: {
        'response.forbidden': {
          actions: {
            type: 'refuse',
            params: ({ event }) => ({ clientId: event.clientId, reason: 'forbidden' }),
          },
        },
        // Any other response: one is being committed already.
        'response.*': {
          actions: {
            type: 'refuse',
            params: ({ event }) => ({ clientId: event.clientId, reason: 'not-pending' }),
          },
        },
        'settlement.accepted': [
          {
            guard: 'respondedCancel',
            target: 'ended',
            actions: ['acceptResponder', 'recordCancelled'],
          },
          { target: 'ended', actions: ['acceptResponder', 'recordAnswered'] },
        ],
        // Still pending, without an outcome: the seam presents the ask again.
        'settlement.counted': {
          target: 'ended',
          actions: { type: 'acceptVote', params: ({ event }) => event },
        },
        'settlement.refused': [
          {
            guard: { type: 'isResponderRefusal', params: ({ event }) => event },
            target: 'ended',
            actions: { type: 'tellResponderRefused', params: ({ event }) => event },
          },
          {
            guard: { type: 'isMisfit', params: ({ event }) => event },
            target: 'ended',
            actions: [
              { type: 'tellResponderMisfit', params: ({ event }) => event },
              'recordMisfit',
            ],
          },
        ],
        'ask.ended': {
          target: 'ended',
          actions: [
            'tellResponderNotPending',
            { type: 'recordEnding', params: ({ event }) => event },
          ],
        },
      },
    },
    ended: { type: 'final' },
  },
})
