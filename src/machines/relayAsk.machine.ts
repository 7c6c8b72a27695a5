import { assertEvent, assign, emit, enqueueActions, setup } from 'xstate'
import { AskEndReasons, endedAs, isHandOver } from '../vocabulary/index.js'
import type {
  ApprovalCount,
  AskErrorData,
  AskOutcomeName,
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
  /**
   * Responses from other clients that came while one was being committed or
   * while the ask waited to be presented again, oldest first: each is handed
   * to the ask in turn once it is presented again, and told `not-pending`
   * only once the ask has ended.
   */
  held: HeldResponse[]
  /** How the ask ended; `undefined` while it is pending, and for an ask handed over. */
  outcome: RelayOutcome | undefined
}

/** A client's answer or cancel kept until the ask can take it. */
export interface HeldResponse {
  /** Who gave it: the client its receipt goes to. */
  clientId: string
  /** The answer or cancel, as the relay read it at its edge. */
  response: RelaySettlingResponse
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
  /** The seam shows the ask again after a vote was counted or a responder refused (DESIGN §12). */
  | { type: 'ask.presented' }
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
 * ask that did not end here: handed over to another provider.
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

/**
 * How the wire names an ending: its own words, but for `failed` (a misfit
 * answer, a failed provider or store), which the wire calls `aborted`.
 */
function wireOutcome(ending: AskOutcomeName): RelayOutcome {
  return ending === 'failed' ? 'aborted' : ending
}

/**
 * What `question/resolved` says of an ask ended by `error` (its signal's
 * reason): how it really ended, even where another console's answer or
 * dismissal took it down (`settled-elsewhere` names it); nothing for a hand-over.
 */
function outcomeOfEnding(error: AskErrorData): RelayOutcome | undefined {
  return isHandOver(error) ? undefined : wireOutcome(endedAs(error))
}

/**
 * A state's transitions, and the responses the relay's edge refused (told
 * at once, whatever state the ask is in). Called as `/* @__PURE__ *\/`, so
 * that a bundler still drops an unused machine.
 */
function orRefusedAtTheEdge<T extends object>(on: T) {
  return {
    ...on,
    'response.forbidden': { actions: 'refuseAtTheEdge' },
    'response.already-voted': { actions: 'refuseAtTheEdge' },
    'response.invalid': { actions: 'refuseAtTheEdge' },
  } as const
}

/**
 * A state's transitions while another response is committed, or while the
 * ask waits to be shown again: an answer or a cancel waits its turn, a
 * refusal at the edge is told at once. Called as `/* @__PURE__ *\/`.
 */
function orHeldForItsTurn<T extends object>(on: T) {
  return orRefusedAtTheEdge({
    ...on,
    'response.answer': { actions: 'hold' },
    'response.cancel': { actions: 'hold' },
  } as const)
}

/**
 * One ask the relay holds for its connected clients (DESIGN §7), deciding
 * its own receipts, across every presentation the seam makes of it. The
 * first valid response settles the seam's provider promise; its client
 * hears "accepted" (and every client "resolved") only once the seam says the
 * store committed it; an invalid one is `bad-response` and the ask stays
 * pending; one from a client that may not see the ask is `forbidden`, a
 * second approval by the same person `already-voted`.
 *
 * On an ask that counts approvals (DESIGN §12) a committed response may
 * leave the ask pending: a vote counted (its client hears "accepted", with
 * the count) or a responder refused (`forbidden`, `already-voted`). The ask
 * then waits (`awaitingPresentation`) until the seam presents it again
 * (`ask.presented`). Another person's answer or cancel that comes while one
 * is committed, or while the ask waits, is not lost: it is held and handed
 * to the ask, in turn, once it is presented again, and is `not-pending` only
 * if the ask ends first. An ask taken away for a hand-over ends without an
 * outcome: it did not end, another provider shows it.
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
    hasHeld: ({ context }) => context.held.length > 0,
    isResponderRefusal: (_, refused: { error: AskErrorData }) =>
      responderRefusal(refused.error) !== undefined,
    isMisfit: (_, refused: { error: AskErrorData }) => refused.error.code === 'BAD_ANSWER',
  },
  actions: {
    refuseAtTheEdge: emit(({ event }) => {
      assertEvent(event, ['response.forbidden', 'response.already-voted', 'response.invalid'])
      const { clientId, response } = event
      if (response.kind !== 'invalid') {
        return { type: 'receipt' as const, clientId, reason: response.kind }
      }
      return {
        type: 'receipt' as const,
        clientId,
        reason: 'bad-response' as const,
        message: response.message,
        ...(response.details === undefined ? {} : { details: response.details }),
      }
    }),
    hold: assign(({ context, event }) => {
      assertEvent(event, ['response.answer', 'response.cancel'])
      return { held: [...context.held, { clientId: event.clientId, response: event.response }] }
    }),
    recordResponder: assign((_, { clientId, response }: HeldResponse) => ({
      responder: clientId,
      responded: response.kind,
    })),
    settleProvider: emit((_, { response }: HeldResponse) => ({
      type: 'provider.settled' as const,
      response,
    })),
    dropFirstHeld: assign(({ context }) => ({ held: context.held.slice(1) })),
    tellHeldNotPending: enqueueActions(({ context, enqueue }) => {
      for (const { clientId } of context.held) {
        enqueue.emit({ type: 'receipt', clientId, reason: 'not-pending' })
      }
      enqueue.assign({ held: [] })
    }),
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
    forgetResponder: assign({ responder: undefined, responded: undefined }),
    recordAnswered: assign({ outcome: 'answered' as const }),
    recordCancelled: assign({ outcome: 'cancelled' as const }),
    recordEnding: assign((_, ended: { error: AskErrorData }) => ({
      outcome: outcomeOfEnding(ended.error),
    })),
    recordMisfit: assign({ outcome: /* @__PURE__ */ wireOutcome('failed') }),
  },
}).createMachine({
  id: 'relayAsk',
  context: ({ input }) => ({
    askId: input.askId,
    sessionId: input.sessionId,
    questions: input.questions,
    responder: undefined,
    responded: undefined,
    held: [],
    outcome: undefined,
  }),
  initial: 'pending',
  output: ({ context }) => ({ outcome: context.outcome }),
  states: {
    pending: {
      // Shown again: the response held longest is the ask's first.
      always: {
        guard: 'hasHeld',
        target: 'committing',
        actions: [
          { type: 'recordResponder', params: ({ context }) => context.held[0] as HeldResponse },
          { type: 'settleProvider', params: ({ context }) => context.held[0] as HeldResponse },
          'dropFirstHeld',
        ],
      },
      on: /* @__PURE__ */ orRefusedAtTheEdge({
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
      }),
    },
    // The seam commits the response: its client waits for the verdict, the others for their turn.
    committing: {
      on: /* @__PURE__ */ orHeldForItsTurn({
        'settlement.accepted': [
          {
            guard: 'respondedCancel',
            target: 'ended',
            actions: ['acceptResponder', 'recordCancelled', 'tellHeldNotPending'],
          },
          {
            target: 'ended',
            actions: ['acceptResponder', 'recordAnswered', 'tellHeldNotPending'],
          },
        ],
        // Still pending: the seam presents the ask again.
        'settlement.counted': {
          target: 'awaitingPresentation',
          actions: [{ type: 'acceptVote', params: ({ event }) => event }, 'forgetResponder'],
        },
        'settlement.refused': [
          {
            guard: { type: 'isResponderRefusal', params: ({ event }) => event },
            target: 'awaitingPresentation',
            actions: [
              { type: 'tellResponderRefused', params: ({ event }) => event },
              'forgetResponder',
            ],
          },
          {
            guard: { type: 'isMisfit', params: ({ event }) => event },
            target: 'ended',
            actions: [
              { type: 'tellResponderMisfit', params: ({ event }) => event },
              'recordMisfit',
              'tellHeldNotPending',
            ],
          },
        ],
        'ask.ended': {
          target: 'ended',
          actions: [
            'tellResponderNotPending',
            { type: 'recordEnding', params: ({ event }) => event },
            'tellHeldNotPending',
          ],
        },
      }),
    },
    // Still pending, between two presentations (a vote counted, a responder refused and the seam's pause).
    awaitingPresentation: {
      on: /* @__PURE__ */ orHeldForItsTurn({
        'ask.presented': { target: 'pending' },
        'ask.ended': {
          target: 'ended',
          actions: [{ type: 'recordEnding', params: ({ event }) => event }, 'tellHeldNotPending'],
        },
      }),
    },
    ended: { type: 'final' },
  },
})
