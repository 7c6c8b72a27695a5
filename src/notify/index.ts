/// <reference types="node" preserve="true" />
/**
 * Signed webhooks for a store's asks (DESIGN §13): `ask.pending`,
 * `ask.reminder`, `ask.escalated` and `ask.settled`, signed as the Standard
 * Webhooks specification says, retried with backoff, and sent once per
 * fleet. No peer dependency: Node's `fetch` and `crypto`.
 *
 * @example
 * ```ts
 * import { startNotifier } from 'askseam/notify'
 *
 * const notifier = startNotifier({ store, webhook: { url, secret: 'whsec_...' } })
 * ```
 */
export { startNotifier } from './notifier.js'
export type { Notifier } from './notifier.js'
export type { NotifierClock, NotifierOptions } from './options.js'
export type { WebhookEventType, WebhookPayload } from './payload.js'
// The types the options and the payload name.
export type { AskOutcome, AskStore } from '../protocol/index.js'
