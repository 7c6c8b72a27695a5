/* The webhook delivery machine's data: its input, context, events and the answers of the actors a notifier provides (DESIGN §13). */

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
  /** Until when this delivery's own claim holds the event (its last claim's end). */
  claimedUntil: number
  /** Whether this delivery holds the event's claim in the ledger. */
  holding: boolean
  /** The ending it writes to the ledger, recorded by the transition into `finishing`. */
  ending: WebhookDeliveryEnding | undefined
  /** The last try's failure, for whoever watches: an HTTP status or a short reason. */
  lastFailure: string | undefined
}

/** What a delivery hears from its notifier. */
export type WebhookDeliveryEvent =
  /** The ask settled (the store's feed said so): a reminder or escalation not yet sent is dropped. */
  | { type: 'ask.settled' }
  /** A slot among the notifier's sends in flight is this delivery's, from `at` (the notifier's clock). */
  | { type: 'slot.granted'; at: number }

/**
 * What a delivery tells its notifier: it wants a slot to send in
 * (`slot.wanted`, answered by `slot.granted` once one is free), or gives
 * back the slot it was granted (`slot.freed`).
 */
export type WebhookDeliveryEmitted = { type: 'slot.wanted' } | { type: 'slot.freed' }

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
  | { status: 'claimed'; expiresAt: number }
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
