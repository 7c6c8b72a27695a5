import { createHmac } from 'node:crypto'

/** The Standard Webhooks headers of one delivery try. */
export interface WebhookHeaders {
  'webhook-id': string
  'webhook-timestamp': string
  'webhook-signature': string
}

/**
 * Signs `body` as the Standard Webhooks specification says: an HMAC-SHA256,
 * keyed with the secret's bytes, over `id.timestamp.body`, written
 * `v1,` + base64. `timestamp` is whole seconds since the epoch.
 */
export function signWebhook(
  key: Buffer,
  id: string,
  timestamp: number,
  body: string,
): WebhookHeaders {
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${signature}`,
  }
}
