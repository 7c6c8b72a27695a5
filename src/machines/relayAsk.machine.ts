import { assign, setup } from 'xstate'
import type { UserQuestionError } from '../vocabulary/index.js'
import type { AskUserQuestionAnswer, AskUserQuestionItem } from '../vocabulary/index.js'

/** How a relayed ask ended, as the wire's `question/resolved` names it. */
export type RelayOutcome = 'answered' | 'cancelled' | 'aborted' | 'timed-out'

/**
 * How one relayed ask ended. Errors are data: the relay adapter turns
 * `answered` into a resolved provider promise and the rest into rejections.
 */
export type RelayAskOutput =
  | { outcome: 'answered'; answer: AskUserQuestionAnswer }
  | { outcome: 'cancelled' | 'aborted' | 'timed-out'; error: UserQuestionError }

/** What a relayed ask starts from: the seam's `askId` doubles as the wire's `rpcId`. */
export interface RelayAskInput {
  askId: string
  /** The asking agent's id, when an agent asks. */
  sessionId?: string
  questions: AskUserQuestionItem[]
}

/** The relayed ask's memory. */
export interface RelayAskContext {
  askId: string
  sessionId: string | undefined
  questions: AskUserQuestionItem[]
  output: RelayAskOutput | undefined
}

/**
 * What reaches a relayed ask. Answers arrive already validated and
 * canonical: the relay checks a client's frame at the edge and sends only a
 * valid one here, so an invalid response never moves this machine.
 */
export type RelayAskEvent =
  /** A client's valid answer; the first one wins. */
  | { type: 'answer.received'; answer: AskUserQuestionAnswer }
  /** A client dismissed the whole batch. */
  | { type: 'batch.cancelled'; error: UserQuestionError }
  /** The seam took the ask away (deadline, caller abort, disposal, close); `error` is the signal's reason. */
  | { type: 'ask.ended'; error: UserQuestionError }

/**
 * One ask the relay holds for its connected clients, from the moment the seam
 * hands it over to its single outcome. Each relayed ask is its own root actor
 * kept in the relay's table by `askId` (DESIGN §6: a shared parent copies its
 * children on every spawn), and it needs no timer: the seam owns the deadline
 * and reports it through `ask.ended`.
 */
export const relayAskMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as RelayAskContext,
    events: {} as RelayAskEvent,
    input: {} as RelayAskInput,
    output: {} as RelayAskOutput,
  },
  guards: {
    isDeadline: ({ event }) => event.type === 'ask.ended' && event.error.code === 'ASK_TIMEOUT',
  },
  actions: {
    recordAnswer: assign({
      output: ({ event }) =>
        event.type === 'answer.received'
          ? { outcome: 'answered' as const, answer: event.answer }
          : undefined,
    }),
    recordCancellation: assign({
      output: ({ event }) =>
        event.type === 'batch.cancelled'
          ? { outcome: 'cancelled' as const, error: event.error }
          : undefined,
    }),
    recordTimeout: assign({
      output: ({ event }) =>
        event.type === 'ask.ended'
          ? { outcome: 'timed-out' as const, error: event.error }
          : undefined,
    }),
    recordAbort: assign({
      output: ({ event }) =>
        event.type === 'ask.ended'
          ? { outcome: 'aborted' as const, error: event.error }
          : undefined,
    }),
  },
}).createMachine({
  id: 'relayAsk',
  context: ({ input }) => ({
    askId: input.askId,
    sessionId: input.sessionId,
    questions: input.questions,
    output: undefined,
  }),
  initial: 'pending',
  output: ({ context }) => context.output as RelayAskOutput,
  states: {
    pending: {
      on: {
        'answer.received': { target: 'answered', actions: 'recordAnswer' },
        'batch.cancelled': { target: 'cancelled', actions: 'recordCancellation' },
        'ask.ended': [
          { guard: 'isDeadline', target: 'timedOut', actions: 'recordTimeout' },
          { target: 'aborted', actions: 'recordAbort' },
        ],
      },
    },
    answered: { type: 'final' },
    cancelled: { type: 'final' },
    aborted: { type: 'final' },
    timedOut: { type: 'final' },
  },
})
