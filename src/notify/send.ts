import type { WebhookSendOutput } from '../machines/index.js'
import { signWebhook } from './sign.js'

/** One delivery try: what it posts, where, and for how long. */
export interface WebhookTry {
  url: string
  key: Buffer
  id: string
  body: string
  timeoutMs: number
  /** Aborted when the notifier stops. */
  signal: AbortSignal
}

/**
 * Posts one signed try and says how it went, never throwing: a 2xx answer
 * is `delivered`; 410 Gone is `gone` (the receiver says the endpoint is no
 * more: retrying would only be refused again); anything else — another
 * status, a redirect (not followed: a signed body is for the URL it was
 * signed for), a timeout, a network error — `failed`, with the reason. The
 * `webhook-timestamp` is the system clock's: it is what receivers check
 * against theirs.
 */
export async function sendWebhook(
  attempt: WebhookTry,
  now: () => number,
): Promise<WebhookSendOutput> {
  const headers = signWebhook(attempt.key, attempt.id, Math.floor(Date.now() / 1000), attempt.body)
  const timeout = AbortSignal.timeout(attempt.timeoutMs)
  try {
    const response = await fetch(attempt.url, {
      method: 'POST',
      body: attempt.body,
      headers: { 'content-type': 'application/json', 'user-agent': 'askseam-notify', ...headers },
      redirect: 'manual',
      signal: AbortSignal.any([timeout, attempt.signal]),
    })
    // The body is not read: releasing it frees the connection.
    await response.body?.cancel().catch(() => undefined)
    const { status } = response
    if (status >= 200 && status < 300) return { at: now(), result: 'delivered' }
    if (status === 410) return { at: now(), result: 'gone', failure: 'status 410' }
    const failure = status >= 300 && status < 400 ? `redirect ${status}` : `status ${status}`
    return { at: now(), result: 'failed', failure }
  } catch (error: unknown) {
    const failure = timeout.aborted
      ? 'timeout'
      : `network: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`
    return { at: now(), result: 'failed', failure }
  }
}
