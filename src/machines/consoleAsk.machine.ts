import { assign, emit, setup } from 'xstate'
import { finalStateOutput } from './final-output.js'
import type { QuestionnaireCancelReason } from './questionnaire.machine.js'

/** What the user sent for an ask: an answer, or a dismissal with its reason. */
export type ConsoleAskSent = 'answered' | QuestionnaireCancelReason

/**
 * How the host took an answer the page sent (a `receipt` frame):
 * `accepted`; `counted` (an approval counted toward several, the ask still
 * waits for others); `not-pending` (the ask was settled already);
 * `refused` (any other reason: a bad response, forbidden, a second vote).
 */
export type ConsoleAskVerdict = 'accepted' | 'counted' | 'not-pending' | 'refused'

/** What the page tells one ask's machine: what the user did, and what the host said of the ask. */
export type ConsoleAskEvent =
  /** The user finished the questions: `frame` is the `question/respond` text to send. */
  | { type: 'answered'; frame: string; sent: ConsoleAskSent }
  /**
   * The host offered the ask (again): `counted` when this page's approval is
   * among the ones the host counted for it.
   */
  | { type: 'offered'; counted: boolean }
  /** After a reconnect the host did not offer the ask again in time. */
  | { type: 'unoffered' }
  /** The host says the ask ended (`question/resolved`). */
  | { type: 'resolved' }
  /** The host's receipt for the answer this page sent. */
  | { type: 'receipt'; verdict: ConsoleAskVerdict }
  /** The console's session is over: nothing more will come for any ask. */
  | { type: 'console.ended' }

/** What the machine asks the page to do. */
export type ConsoleAskEmitted =
  /** Send this `question/respond` frame to the host. */
  | { type: 'answer.send'; frame: string }
  /** Start the questions over, from nothing: what the user sent was not used. */
  | { type: 'questions.restart' }

/** One ask on the console page, as data. */
export interface ConsoleAskContext {
  /** What the user sent and its frame; none while they answer (again, once the questions start over). */
  sent: { frame: string; kind: ConsoleAskSent } | undefined
}

/**
 * Why an ask left the page: the host `accepted` the answer; `counted` this
 * page's approval (the ask comes back, counted, if it still waits); the ask
 * had `ended` before the answer reached the host (`not-pending`), or ended
 * without one (`resolved`), or the host `refused` an answer to an ask that
 * then ended; or the console's session ended (`console-ended`).
 */
export type ConsoleAskLeft =
  'accepted' | 'counted' | 'not-pending' | 'resolved' | 'refused' | 'console-ended'

/** How an ask left the page, and what the user had sent. */
export interface ConsoleAskOutput {
  left: ConsoleAskLeft
  /**
   * What the user had sent, when an answer was out as the ask left; on
   * `console-ended`, an answer the host never confirmed.
   */
  sent?: ConsoleAskSent
}

const leaves = (left: ConsoleAskLeft) => ({
  type: 'final' as const,
  output: ({ context }: { context: ConsoleAskContext }): ConsoleAskOutput =>
    context.sent === undefined ? { left } : { left, sent: context.sent.kind },
})

const verdictIs =
  (verdict: ConsoleAskVerdict) =>
  ({ event }: { event: ConsoleAskEvent }) =>
    event.type === 'receipt' && event.verdict === verdict

/**
 * One ask on the web console page, from the host's first offer until it
 * leaves the page, beside the `questionnaireMachine` the user answers it
 * with. `shown` (tagged `listed`: the page lists it) is `answering`, then
 * `sent` once the user finished: the answer goes out on entry, and again
 * each time the host offers the ask anew (after a reconnect), until a
 * receipt settles it. An ask the host resolves while this page's answer is
 * out leaves the list and waits for its receipt (`awaitingReceipt`: the
 * receipt says whose answer won); one the host does not offer again after a
 * reconnect is `carried`, kept aside with the user's work until the host
 * offers it again. A refused answer, or an approval the host counted while
 * the ask still waits, starts the questions over. Each final state says why
 * the ask left.
 *
 * @example
 * ```ts
 * const ask = createActor(consoleAskMachine)
 * ask.on('answer.send', ({ frame }) => socket.send(frame))
 * ask.start()
 * ask.send({ type: 'answered', frame, sent: 'answered' })
 * ```
 */
export const consoleAskMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as ConsoleAskContext,
    events: {} as ConsoleAskEvent,
    emitted: {} as ConsoleAskEmitted,
    output: {} as ConsoleAskOutput,
  },
  guards: {
    isAccepted: /* @__PURE__ */ verdictIs('accepted'),
    isNotPending: /* @__PURE__ */ verdictIs('not-pending'),
    // A receipt counting the approval this page sent (one that comes while the user answers again moves nothing).
    isCountedAnswer: ({ context, event }) =>
      context.sent !== undefined && event.type === 'receipt' && event.verdict === 'counted',
    isRefused: /* @__PURE__ */ verdictIs('refused'),
    isCountedAfterAnswer: ({ context, event }) =>
      context.sent !== undefined && event.type === 'offered' && event.counted,
    wasSent: ({ context }) => context.sent !== undefined,
  },
  actions: {
    keepAnswer: assign((_, answer: { frame: string; sent: ConsoleAskSent }) => ({
      sent: { frame: answer.frame, kind: answer.sent },
    })),
    sendAnswer: emit(({ context }) => ({
      type: 'answer.send' as const,
      frame: context.sent?.frame ?? '',
    })),
    forgetAnswer: assign({ sent: undefined }),
    restartQuestions: emit({ type: 'questions.restart' as const }),
  },
}).createMachine({
  id: 'consoleAsk',
  context: { sent: undefined },
  initial: 'shown',
  on: {
    receipt: [
      { guard: 'isAccepted', target: '.accepted' },
      { guard: 'isNotPending', target: '.notPending' },
      // An approval counted toward several: it leaves until the host offers it again with the new count.
      { guard: 'isCountedAnswer', target: '.counted' },
    ],
    'console.ended': '.consoleEnded',
  },
  states: {
    shown: {
      tags: ['listed'],
      initial: 'answering',
      states: {
        answering: {
          on: {
            answered: {
              target: 'sent',
              actions: { type: 'keepAnswer', params: ({ event }) => event },
            },
            // Ended without this page's answer.
            resolved: '#consoleAsk.resolved',
          },
        },
        sent: {
          entry: 'sendAnswer',
          on: {
            offered: [
              // Counted already: Approve is spent, the rest of the questions are open again.
              {
                guard: 'isCountedAfterAnswer',
                target: 'answering',
                actions: ['forgetAnswer', 'restartQuestions'],
              },
              // The host replays the ask after a reconnect: the answer it never confirmed goes again.
              { target: 'sent', reenter: true },
            ],
            // Ours may have won: the receipt that follows says so.
            resolved: '#consoleAsk.awaitingReceipt',
          },
        },
      },
      on: {
        unoffered: 'carried',
        // Start the questions over rather than lose them.
        receipt: {
          guard: 'isRefused',
          target: '.answering',
          actions: ['forgetAnswer', 'restartQuestions'],
        },
      },
    },
    // Not listed: the user's work is kept for a host that offers the ask later.
    carried: {
      on: {
        offered: [
          {
            guard: 'isCountedAfterAnswer',
            target: 'shown.answering',
            actions: ['forgetAnswer', 'restartQuestions'],
          },
          { guard: 'wasSent', target: 'shown.sent' },
          { target: 'shown.answering' },
        ],
        receipt: { guard: 'isRefused', actions: ['forgetAnswer', 'restartQuestions'] },
      },
    },
    awaitingReceipt: {
      // The ask ended and the host did not take this answer: nothing is left to answer.
      on: { receipt: { guard: 'isRefused', target: 'refused' } },
    },
    accepted: /* @__PURE__ */ leaves('accepted'),
    counted: /* @__PURE__ */ leaves('counted'),
    notPending: /* @__PURE__ */ leaves('not-pending'),
    resolved: /* @__PURE__ */ leaves('resolved'),
    refused: /* @__PURE__ */ leaves('refused'),
    consoleEnded: /* @__PURE__ */ leaves('console-ended'),
  },
  output: finalStateOutput<ConsoleAskOutput>,
})
