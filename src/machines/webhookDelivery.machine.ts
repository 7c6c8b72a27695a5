import { assign, emit, fromPromise, setup } from 'xstate'
import { finalStateOutput } from './final-output.js'
import { clampDelay } from './time.js'
import { FIRST_WEBHOOK_RETRY_MS, MAX_WEBHOOK_RETRY_MS } from './webhookDelivery.types.js'
import type {
  WebhookEventKind,
  WebhookDeliveryEnding,
  WebhookDeliveryInput,
  WebhookDeliveryContext,
  WebhookDeliveryEvent,
  WebhookDeliveryEmitted,
  WebhookClaimInput,
  WebhookClaimOutput,
  WebhookAskRead,
  WebhookSendOutput,
  WebhookFinishInput,
  WebhookDeliveryOutput,
} from './webhookDelivery.types.js'
export type {
  WebhookEventKind,
  WebhookDeliveryEnding,
  WebhookDeliveryInput,
  WebhookDeliveryContext,
  WebhookDeliveryEvent,
  WebhookDeliveryEmitted,
  WebhookClaimInput,
  WebhookClaimOutput,
  WebhookAskRead,
  WebhookSendOutput,
  WebhookFinishInput,
  WebhookDeliveryOutput,
} from './webhookDelivery.types.js'

/**
 * The wait before try `attempts + 1` of `eventId`: doubling from
 * {@link FIRST_WEBHOOK_RETRY_MS} up to {@link MAX_WEBHOOK_RETRY_MS}, with
 * jitter (between half and all of it) so events that failed together do
 * not all retry together. The jitter comes from the event id and the try,
 * not a random number, so the same delivery always waits the same.
 */
export function webhookRetryDelay(eventId: string, attempts: number): number {
  const ceiling = Math.min(
    MAX_WEBHOOK_RETRY_MS,
    FIRST_WEBHOOK_RETRY_MS * 2 ** Math.min(Math.max(attempts - 1, 0), 16),
  )
  return clampDelay(ceiling / 2 + (ceiling / 2) * spread(`${eventId}#${attempts}`))
}

/** A number in [0, 1) drawn from `text` (FNV-1a). */
function spread(text: string): number {
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0) / 2 ** 32
}

/** The ask's settlement stops this kind of event. */
const stopsOnSettlement = (kind: WebhookEventKind): boolean => kind !== 'settled'

/** A claim's margin beyond the try it covers: a store write before and after. */
const CLAIM_MARGIN_MS = 5_000

/** What a claim must still cover beyond the try about to be made: the write of its ending. */
const FINISH_MARGIN_MS = 2_500

/** A claim's output, as its verdict's guards and actions read it. */
const claimOutput = ({ event }: { event: { output: WebhookClaimOutput } }) => event.output

/**
 * Where a claim's verdict leads, from either claim (before the wait, or afresh
 * for the try): claimed goes on to `next`; held by another notifier, stand by;
 * unrecorded (an ask.settled nobody owes), dropped; finished, by another.
 */
const claimVerdicts = <TNext extends string>(next: TNext) => [
  {
    guard: { type: 'wasClaimed' as const, params: claimOutput },
    target: next,
    actions: { type: 'recordClaim' as const, params: claimOutput },
  },
  {
    guard: { type: 'isHeld' as const, params: claimOutput },
    target: '#webhookDelivery.standingBy',
    actions: { type: 'recordClaim' as const, params: claimOutput },
  },
  {
    guard: { type: 'isUnrecorded' as const, params: claimOutput },
    target: '#webhookDelivery.droppedHere',
  },
  { target: '#webhookDelivery.finishedElsewhere' },
]

/**
 * The ending this delivery writes to the ledger: every transition into
 * `finishing` records one, so finding none is a fault of this machine, not
 * an ending to assume.
 */
function ledgerEnding({ ending }: WebhookDeliveryContext): WebhookDeliveryEnding {
  if (ending === undefined) throw new Error('webhookDeliveryMachine: finishing with no ending')
  return ending
}

const unprovided = <TOutput, TInput>() =>
  fromPromise<TOutput, TInput>(async () => {
    throw new Error('webhookDeliveryMachine: provide this actor')
  })

/**
 * One webhook event's delivery (DESIGN §13), from the moment it is due to
 * its end, shared with every notifier on the store through the
 * notification ledger: due (a named delay), claimed in the ledger (or
 * standing by while another notifier's claim holds it), given a slot among
 * the notifier's sends in flight (`waitingForSlot` until one is free, then
 * claimed afresh for the try alone if its claim would not cover it),
 * checked (a reminder or escalation for an ask that settled is dropped),
 * sent, and on a failed
 * try claimed again for the wait and retried with backoff until it is
 * delivered, answered 410 Gone, or gives up; the ending is written to the
 * ledger. Time is the notifier's clock, read by its actors (each output
 * carries `at`), so a simulated clock drives it whole.
 *
 * The notifier provides the actors: `claim`, `readAsk`, `send`, `finish`;
 * it answers the emitted `slot.wanted` with `slot.granted` once a slot is
 * free, and takes the slot back at `slot.freed`.
 */
export const webhookDeliveryMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as WebhookDeliveryContext,
    events: {} as WebhookDeliveryEvent,
    emitted: {} as WebhookDeliveryEmitted,
    input: {} as WebhookDeliveryInput,
    output: {} as WebhookDeliveryOutput,
  },
  actors: {
    claim: unprovided<WebhookClaimOutput, WebhookClaimInput>(),
    readAsk: unprovided<WebhookAskRead, { askId: string }>(),
    send: unprovided<
      WebhookSendOutput,
      { eventId: string; askId: string; attempt: number; dueAt: number }
    >(),
    finish: unprovided<void, WebhookFinishInput>(),
  },
  guards: {
    stopsOnSettlement: ({ context }) => stopsOnSettlement(context.kind),
    wasClaimed: (_, output: WebhookClaimOutput) => output.status === 'claimed',
    isHeld: (_, output: WebhookClaimOutput) => output.status === 'held',
    isUnrecorded: (_, output: WebhookClaimOutput) => output.status === 'unrecorded',
    isUnwanted: ({ context }, read: WebhookAskRead) =>
      read.state === 'missing' || (stopsOnSettlement(context.kind) && read.state === 'settled'),
    awaitsSettlement: ({ context }, read: WebhookAskRead) =>
      context.kind === 'settled' && read.state === 'pending',
    isDelivered: (_, sent: WebhookSendOutput) => sent.result === 'delivered',
    isGone: (_, sent: WebhookSendOutput) => sent.result === 'gone',
    isPastGivingUp: ({ context }) =>
      context.firstAttemptAt !== undefined &&
      context.now + context.retryInMs - context.firstAttemptAt >= context.giveUpAfterMs,
    hasNoWait: ({ context }) => context.retryInMs === 0,
    claimCoversTry: ({ context }, granted: { at: number }) =>
      context.holding &&
      context.claimedUntil - granted.at >= context.attemptTimeoutMs + FINISH_MARGIN_MS,
  },
  delays: {
    untilDue: ({ context }) => clampDelay(context.dueAt - context.now),
    retryWait: ({ context }) => clampDelay(context.retryInMs),
    untilClaimLapses: ({ context }) => clampDelay(context.heldUntil - context.now),
    storeRetry: ({ context }) => webhookRetryDelay(`${context.eventId}#store`, context.attempts),
  },
  actions: {
    recordClaim: assign((_, output: WebhookClaimOutput) => ({
      now: output.at,
      holding: output.status === 'claimed',
      heldUntil: output.status === 'held' ? output.expiresAt : 0,
      claimedUntil: output.status === 'claimed' ? output.expiresAt : 0,
    })),
    recordGrant: assign((_, granted: { at: number }) => ({ now: granted.at })),
    wantSlot: emit({ type: 'slot.wanted' as const }),
    freeSlot: emit({ type: 'slot.freed' as const }),
    recordRead: assign((_, read: WebhookAskRead) => ({ now: read.at })),
    recordTry: assign(({ context }, sent: WebhookSendOutput) => ({
      now: sent.at,
      attempts: context.attempts + 1,
      firstAttemptAt: context.firstAttemptAt ?? sent.at,
      retryInMs: webhookRetryDelay(context.eventId, context.attempts + 1),
      lastFailure: sent.failure,
    })),
    endDelivered: assign({ ending: 'delivered' as const }),
    endGone: assign({ ending: 'gone' as const }),
    endGivenUp: assign({ ending: 'given-up' as const }),
    endDropped: assign({ ending: 'dropped' as const }),
    release: assign({ holding: false }),
  },
}).createMachine({
  id: 'webhookDelivery',
  context: ({ input }) => ({
    ...input,
    attempts: 0,
    firstAttemptAt: undefined,
    retryInMs: 0,
    heldUntil: 0,
    claimedUntil: 0,
    holding: false,
    ending: undefined,
    lastFailure: undefined,
  }),
  initial: 'due',
  states: {
    due: {
      after: { untilDue: 'claiming' },
      on: { 'ask.settled': { guard: 'stopsOnSettlement', target: 'droppedHere' } },
    },
    claiming: {
      invoke: {
        src: 'claim',
        input: ({ context }) => ({
          eventId: context.eventId,
          askId: context.askId,
          holdMs: context.retryInMs + context.attemptTimeoutMs + CLAIM_MARGIN_MS,
          recordedOnly: context.kind === 'settled',
        }),
        onDone: /* @__PURE__ */ claimVerdicts('#webhookDelivery.claimed'),
        onError: 'storeUnavailable',
      },
    },
    // The claim covers the wait ahead (none before the first try) and the try after it.
    claimed: {
      always: [
        { guard: 'isPastGivingUp', target: 'finishing', actions: 'endGivenUp' },
        { guard: 'hasNoWait', target: 'waitingForSlot' },
      ],
      after: { retryWait: 'waitingForSlot' },
    },
    // Due, and claimed: it waits here for a free slot among the notifier's sends in flight.
    waitingForSlot: {
      entry: 'wantSlot',
      on: {
        'slot.granted': [
          {
            guard: { type: 'claimCoversTry', params: ({ event }) => event },
            target: 'withSlot.checking',
            actions: { type: 'recordGrant', params: ({ event }) => event },
          },
          {
            target: 'withSlot.reclaiming',
            actions: { type: 'recordGrant', params: ({ event }) => event },
          },
        ],
        'ask.settled': { guard: 'stopsOnSettlement', target: 'finishing', actions: 'endDropped' },
      },
    },
    // Holding a slot: the slot goes back to the notifier whichever way this state is left.
    withSlot: {
      exit: 'freeSlot',
      initial: 'checking',
      states: {
        // The claim lapsed (or nearly) while the delivery waited for its slot: a fresh one, for the try alone.
        reclaiming: {
          invoke: {
            src: 'claim',
            input: ({ context }) => ({
              eventId: context.eventId,
              askId: context.askId,
              holdMs: context.attemptTimeoutMs + CLAIM_MARGIN_MS,
              recordedOnly: context.kind === 'settled',
            }),
            onDone: /* @__PURE__ */ claimVerdicts('#webhookDelivery.withSlot.checking'),
            onError: '#webhookDelivery.storeUnavailable',
          },
        },
        checking: {
          invoke: {
            src: 'readAsk',
            input: ({ context }) => ({ askId: context.askId }),
            onDone: [
              {
                guard: { type: 'isUnwanted', params: ({ event }) => event.output },
                target: '#webhookDelivery.finishing',
                actions: [
                  { type: 'recordRead', params: ({ event }) => event.output },
                  'endDropped',
                ],
              },
              {
                guard: { type: 'awaitsSettlement', params: ({ event }) => event.output },
                target: '#webhookDelivery.awaitingSettlement',
                actions: { type: 'recordRead', params: ({ event }) => event.output },
              },
              {
                target: 'sending',
                actions: { type: 'recordRead', params: ({ event }) => event.output },
              },
            ],
            onError: '#webhookDelivery.storeUnavailable',
          },
        },
        sending: {
          invoke: {
            src: 'send',
            input: ({ context }) => ({
              eventId: context.eventId,
              askId: context.askId,
              attempt: context.attempts + 1,
              dueAt: context.dueAt,
            }),
            onDone: [
              {
                guard: { type: 'isDelivered', params: ({ event }) => event.output },
                target: '#webhookDelivery.finishing',
                actions: [
                  { type: 'recordTry', params: ({ event }) => event.output },
                  'endDelivered',
                ],
              },
              {
                guard: { type: 'isGone', params: ({ event }) => event.output },
                target: '#webhookDelivery.finishing',
                actions: [{ type: 'recordTry', params: ({ event }) => event.output }, 'endGone'],
              },
              {
                target: '#webhookDelivery.claiming',
                actions: { type: 'recordTry', params: ({ event }) => event.output },
              },
            ],
            // The send actor answers every failure as data; a throw is a fault of the notifier's own.
            onError: '#webhookDelivery.storeUnavailable',
          },
        },
      },
    },
    // A settled event whose ask is still pending (owed across a restart): it waits for the settlement.
    awaitingSettlement: {
      on: { 'ask.settled': 'waitingForSlot' },
    },
    standingBy: {
      after: { untilClaimLapses: 'claiming' },
      on: { 'ask.settled': { guard: 'stopsOnSettlement', target: 'droppedHere' } },
    },
    // The store could not be read or written: tried again after a wait, the claim (if any) still held.
    storeUnavailable: {
      after: { storeRetry: 'claiming' },
    },
    finishing: {
      invoke: {
        src: 'finish',
        input: ({ context }) => ({
          eventId: context.eventId,
          askId: context.askId,
          kind: context.kind,
          ending: ledgerEnding(context),
        }),
        onDone: { target: 'ended', actions: 'release' },
        onError: 'finishingAgain',
      },
    },
    finishingAgain: {
      after: { storeRetry: 'finishing' },
    },
    // How the delivery ended is the final state it ended in (and, once written, the ledger's ending).
    ended: {
      type: 'final',
      output: ({ context }): WebhookDeliveryOutput => ({
        ending: ledgerEnding(context),
        attempts: context.attempts,
      }),
    },
    // Nothing claimed, nothing written: a reminder its ask's settlement made moot, or a settlement nobody owes.
    droppedHere: {
      type: 'final',
      output: ({ context }): WebhookDeliveryOutput => ({
        ending: 'dropped',
        attempts: context.attempts,
      }),
    },
    finishedElsewhere: {
      type: 'final',
      output: ({ context }): WebhookDeliveryOutput => ({
        ending: 'elsewhere',
        attempts: context.attempts,
      }),
    },
  },
  output: finalStateOutput<WebhookDeliveryOutput>,
})
