import { assign, fromPromise, setup } from 'xstate'
import { clampDelay } from './time.js'

/** The kinds of webhook event a notifier sends (DESIGN §13). */
export type WebhookEventKind = 'pending' | 'reminder' | 'escalated' | 'settled'

/** How an event's delivery ended, as the notification ledger keeps it. */
export type WebhookDeliveryEnding = 'delivered' | 'gone' | 'given-up' | 'dropped'

/** The first wait before a failed delivery is tried again. */
export const FIRST_WEBHOOK_RETRY_MS = 1_000
/** The longest wait between two tries of one event: a receiver back up hears from it within this. */
export const MAX_WEBHOOK_RETRY_MS = 60_000

/** What one event's delivery starts from: data only. */
export interface WebhookDeliveryInput {
  /** The event's id, the same in every notifier and on every retry (the `webhook-id`). */
  eventId: string
  askId: string
  kind: WebhookEventKind
  /** When the event is due, epoch milliseconds of the notifier's clock. */
  dueAt: number
  /** The notifier's clock as the delivery starts. */
  now: number
  /** How long one try may take before it counts as failed. */
  attemptTimeoutMs: number
  /** How long after the first try a delivery that never succeeded gives up. */
  giveUpAfterMs: number
}

/** One event's delivery, as data. */
export interface WebhookDeliveryContext extends WebhookDeliveryInput {
  /** Tries made so far. */
  attempts: number
  /** When the first try began. */
  firstAttemptAt: number | undefined
  /** How long the next wait before a retry lasts (also what the claim must cover). */
  retryInMs: number
  /** Until when another notifier's claim holds the event. */
  heldUntil: number
  /** Whether this delivery holds the event's claim in the ledger. */
  holding: boolean
  /** The ask settled: a reminder or escalation is not sent. */
  askSettled: boolean
  /** How it ended, once it has (`elsewhere`: another notifier finished it). */
  ending: WebhookDeliveryEnding | 'elsewhere' | undefined
  /** The last try's failure, for whoever watches: an HTTP status or a short reason. */
  lastFailure: string | undefined
}

/** What a delivery hears from its notifier. */
export type WebhookDeliveryEvent =
  /** The ask settled (the store's feed said so): a reminder or escalation not yet sent is dropped. */
  { type: 'ask.settled' }

/** What the `claim` actor is given: how long the claim must last from now. */
export interface WebhookClaimInput {
  eventId: string
  askId: string
  holdMs: number
  /** A settlement is sent only where the ledger records it as owed (its `ask.pending` was delivered). */
  recordedOnly: boolean
}

/** What the `claim` actor answers. */
export type WebhookClaimOutput = { at: number } & (
  | { status: 'claimed' }
  | { status: 'held'; expiresAt: number }
  | { status: 'finished' }
  | { status: 'unrecorded' }
)

/** What the `readAsk` actor answers: the ask's state in the store. */
export interface WebhookAskRead {
  at: number
  state: 'pending' | 'settled' | 'missing'
}

/** What the `send` actor answers: one try. */
export interface WebhookSendOutput {
  at: number
  result: 'delivered' | 'gone' | 'failed'
  /** Why a try failed: `status 500`, `redirect 302`, `timeout`, `network: ...`. */
  failure?: string
}

/** What the `finish` actor is given. */
export interface WebhookFinishInput {
  eventId: string
  askId: string
  kind: WebhookEventKind
  ending: WebhookDeliveryEnding
}

/** How the delivery ended: `elsewhere` when another notifier finished it (or holds it as the ask settles). */
export interface WebhookDeliveryOutput {
  ending: WebhookDeliveryEnding | 'elsewhere'
  attempts: number
}

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

const unprovided = <TOutput, TInput>() =>
  fromPromise<TOutput, TInput>(async () => {
    throw new Error('webhookDeliveryMachine: provide this actor')
  })

/**
 * One webhook event's delivery (DESIGN §13), from the moment it is due to
 * its end, shared with every notifier on the store through the
 * notification ledger: due (a named delay), claimed in the ledger (or
 * standing by while another notifier's claim holds it), checked (a reminder
 * or escalation for an ask that settled is dropped), sent, and on a failed
 * try claimed again for the wait and retried with backoff until it is
 * delivered, answered 410 Gone, or gives up; the ending is written to the
 * ledger. Time is the notifier's clock, read by its actors (each output
 * carries `at`), so a simulated clock drives it whole.
 *
 * The notifier provides the actors: `claim`, `readAsk`, `send`, `finish`.
 */
export const webhookDeliveryMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as WebhookDeliveryContext,
    events: {} as WebhookDeliveryEvent,
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
    })),
    recordRead: assign((_, read: WebhookAskRead) => ({
      now: read.at,
      askSettled: read.state !== 'pending',
    })),
    recordTry: assign(({ context }, sent: WebhookSendOutput) => ({
      now: sent.at,
      attempts: context.attempts + 1,
      firstAttemptAt: context.firstAttemptAt ?? sent.at,
      retryInMs: webhookRetryDelay(context.eventId, context.attempts + 1),
      lastFailure: sent.failure,
    })),
    recordSettled: assign({ askSettled: true }),
    endDelivered: assign({ ending: 'delivered' as const }),
    endGone: assign({ ending: 'gone' as const }),
    endGivenUp: assign({ ending: 'given-up' as const }),
    endDropped: assign({ ending: 'dropped' as const }),
    endElsewhere: assign({ ending: 'elsewhere' as const }),
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
    holding: false,
    askSettled: false,
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
        onDone: [
          {
            guard: { type: 'wasClaimed', params: ({ event }) => event.output },
            target: 'claimed',
            actions: { type: 'recordClaim', params: ({ event }) => event.output },
          },
          {
            guard: { type: 'isHeld', params: ({ event }) => event.output },
            target: 'standingBy',
            actions: { type: 'recordClaim', params: ({ event }) => event.output },
          },
          {
            guard: { type: 'isUnrecorded', params: ({ event }) => event.output },
            target: 'droppedHere',
          },
          { target: 'finishedElsewhere' },
        ],
        onError: 'storeUnavailable',
      },
    },
    // The claim covers the wait ahead (none before the first try) and the try after it.
    claimed: {
      always: [
        { guard: 'isPastGivingUp', target: 'finishing', actions: 'endGivenUp' },
        { guard: 'hasNoWait', target: 'checking' },
      ],
      after: { retryWait: 'checking' },
      on: { 'ask.settled': { guard: 'stopsOnSettlement', actions: 'recordSettled' } },
    },
    checking: {
      invoke: {
        src: 'readAsk',
        input: ({ context }) => ({ askId: context.askId }),
        onDone: [
          {
            guard: { type: 'isUnwanted', params: ({ event }) => event.output },
            target: 'finishing',
            actions: [{ type: 'recordRead', params: ({ event }) => event.output }, 'endDropped'],
          },
          {
            guard: { type: 'awaitsSettlement', params: ({ event }) => event.output },
            target: 'awaitingSettlement',
            actions: { type: 'recordRead', params: ({ event }) => event.output },
          },
          {
            target: 'sending',
            actions: { type: 'recordRead', params: ({ event }) => event.output },
          },
        ],
        onError: 'storeUnavailable',
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
            target: 'finishing',
            actions: [{ type: 'recordTry', params: ({ event }) => event.output }, 'endDelivered'],
          },
          {
            guard: { type: 'isGone', params: ({ event }) => event.output },
            target: 'finishing',
            actions: [{ type: 'recordTry', params: ({ event }) => event.output }, 'endGone'],
          },
          {
            target: 'claiming',
            actions: { type: 'recordTry', params: ({ event }) => event.output },
          },
        ],
        // The send actor answers every failure as data; a throw is a fault of the notifier's own.
        onError: 'storeUnavailable',
      },
      on: { 'ask.settled': { guard: 'stopsOnSettlement', actions: 'recordSettled' } },
    },
    // A settled event whose ask is still pending (owed across a restart): it waits for the settlement.
    awaitingSettlement: {
      on: { 'ask.settled': 'checking' },
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
          ending:
            context.ending === undefined || context.ending === 'elsewhere'
              ? 'dropped'
              : context.ending,
        }),
        onDone: { target: 'ended', actions: 'release' },
        onError: 'finishingAgain',
      },
    },
    finishingAgain: {
      after: { storeRetry: 'finishing' },
    },
    ended: { type: 'final' },
    droppedHere: { type: 'final', entry: 'endDropped' },
    finishedElsewhere: { type: 'final', entry: 'endElsewhere' },
  },
  output: ({ context }) => ({ ending: context.ending ?? 'dropped', attempts: context.attempts }),
})
