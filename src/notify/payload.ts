import type { AskOutcome, AskRecord } from '../protocol/internal.js'
import type { WebhookEventKind } from '../machines/index.js'

/** The `type` of each webhook event (DESIGN §13). */
export type WebhookEventType = 'ask.pending' | 'ask.reminder' | 'ask.escalated' | 'ask.settled'

/** The body of every webhook askseam sends (DESIGN §13). */
export interface WebhookPayload {
  /** What happened. */
  type: WebhookEventType
  /** When the event happened (it fell due, or the ask settled), ISO 8601: the same on every retry. */
  timestamp: string
  /** The ask the event is about. */
  data: {
    askId: string
    key?: string
    agentId?: string
    questions: Array<{ id: string; question: string; header?: string }>
    /** The ask's deadline, epoch milliseconds. */
    deadline?: number
    /** `${consoleUrl}#ask=${askId}`, when the notifier knows the console's address. */
    link?: string
    /** `ask.settled` only: the outcome the store committed (the answer, or the error as data). */
    outcome?: AskOutcome
  }
}

/** A notifier's event: which kind, about which ask, and its number for a reminder. */
export interface NotifierEvent {
  kind: WebhookEventKind
  askId: string
  /** The reminder's number, from 1. */
  reminder?: number
}

/**
 * The event's id, the same in every notifier sharing the store and on every
 * retry: the `webhook-id` a receiver deduplicates by, and the event's key
 * in the notification ledger.
 */
export function eventIdOf(event: NotifierEvent): string {
  return event.kind === 'reminder'
    ? `${event.askId}.reminder.${event.reminder ?? 1}`
    : `${event.askId}.${event.kind}`
}

/** The event an id of {@link eventIdOf} names, or `undefined` for one it does not. */
export function eventOf(eventId: string, askId: string): NotifierEvent | undefined {
  if (!eventId.startsWith(`${askId}.`)) return undefined
  const rest = eventId.slice(askId.length + 1)
  if (rest === 'pending' || rest === 'escalated' || rest === 'settled') return { kind: rest, askId }
  const reminder = /^reminder\.([1-9]\d{0,8})$/.exec(rest)?.[1]
  return reminder === undefined
    ? undefined
    : { kind: 'reminder', askId, reminder: Number(reminder) }
}

const TYPES: Record<WebhookEventKind, WebhookEventType> = {
  pending: 'ask.pending',
  reminder: 'ask.reminder',
  escalated: 'ask.escalated',
  settled: 'ask.settled',
}

/** The body of `event` about `record`, happening at `at` (epoch milliseconds). */
export function payloadOf(
  event: NotifierEvent,
  record: AskRecord,
  at: number,
  consoleUrl: string | undefined,
): WebhookPayload {
  const data: WebhookPayload['data'] = {
    askId: record.askId,
    questions: record.questions.map((item) =>
      item.header === undefined
        ? { id: item.id, question: item.question }
        : { id: item.id, question: item.question, header: item.header },
    ),
  }
  if (record.key !== undefined) data.key = record.key
  if (record.agentId !== undefined) data.agentId = record.agentId
  if (record.deadline !== undefined) data.deadline = record.deadline
  if (consoleUrl !== undefined) data.link = `${consoleUrl}#ask=${encodeURIComponent(record.askId)}`
  if (event.kind === 'settled' && record.outcome !== undefined) data.outcome = record.outcome
  return { type: TYPES[event.kind], timestamp: new Date(at).toISOString(), data }
}
