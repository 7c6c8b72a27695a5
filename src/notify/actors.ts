import { fromPromise } from 'xstate'
import { webhookDeliveryMachine } from '../machines/index.js'
import type {
  WebhookAskRead,
  WebhookClaimInput,
  WebhookClaimOutput,
  WebhookFinishInput,
  WebhookSendOutput,
} from '../machines/index.js'
import type { AskRecord } from '../protocol/internal.js'
import type { ResolvedNotifierOptions } from './options.js'
import { eventIdOf, eventOf, payloadOf } from './payload.js'
import { sendWebhook } from './send.js'

/** What a notifier's delivery actors share with it. */
export interface DeliveryWorld {
  settings: ResolvedNotifierOptions
  /** The notifier's name in the ledger's claims. */
  holder: string
  now: () => number
  /** The latest record of each ask a delivery is about: what a payload is built from. */
  asks: Map<string, AskRecord>
}

/** The delivery machine with a notifier's store, ledger and HTTP actors provided. */
export function deliveryMachineFor(world: DeliveryWorld) {
  const { settings, holder, now, asks } = world
  const { store, ledger } = settings
  return webhookDeliveryMachine.provide({
    actors: {
      claim: fromPromise<WebhookClaimOutput, WebhookClaimInput>(async ({ input }) => {
        const from = now()
        const expiresAt = from + input.holdMs
        const result = await ledger.claim({
          eventId: input.eventId,
          askId: input.askId,
          holder,
          now: from,
          expiresAt,
          ...(input.recordedOnly ? { recordedOnly: true } : {}),
        })
        const at = now()
        if (result.status === 'held') return { at, status: 'held', expiresAt: result.expiresAt }
        return result.status === 'claimed'
          ? { at, status: 'claimed', expiresAt }
          : { at, status: result.status }
      }),
      readAsk: fromPromise<WebhookAskRead, { askId: string }>(async ({ input }) => {
        const record = await store.get(input.askId)
        if (record === undefined) return { at: now(), state: 'missing' }
        asks.set(record.askId, record)
        return { at: now(), state: record.state }
      }),
      send: fromPromise<
        WebhookSendOutput,
        { eventId: string; askId: string; attempt: number; dueAt: number }
      >(async ({ input, signal }) => {
        const record = asks.get(input.askId)
        const event = eventOf(input.eventId, input.askId)
        if (record === undefined || event === undefined) {
          return { at: now(), result: 'failed', failure: 'the ask is not known' }
        }
        const at = event.kind === 'settled' ? (record.settledAt ?? input.dueAt) : input.dueAt
        const body = JSON.stringify(payloadOf(event, record, at, settings.consoleUrl))
        return sendWebhook(
          {
            url: settings.url,
            key: settings.key,
            id: input.eventId,
            body,
            timeoutMs: settings.attemptTimeoutMs,
            // Aborted when the actor stops, as close() stops every one.
            signal,
          },
          now,
        )
      }),
      finish: fromPromise<void, WebhookFinishInput>(async ({ input }) => {
        const owesSettlement = input.kind === 'pending' && input.ending === 'delivered'
        await ledger.finish({
          eventId: input.eventId,
          ending: input.ending,
          at: now(),
          ...(owesSettlement
            ? {
                owes: {
                  eventId: eventIdOf({ kind: 'settled', askId: input.askId }),
                  askId: input.askId,
                },
              }
            : {}),
        })
      }),
    },
  })
}
