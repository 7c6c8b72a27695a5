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
    await drain(response.body)
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

/** The most of an answer's body read so its connection can be kept for the next try. */
const MAX_DRAINED_BYTES = 64 * 1024

/**
 * Reads an answer's body to its end, so the connection goes back to the
 * pool and the next try reuses it (a body cancelled part-read closes the
 * socket); one longer than {@link MAX_DRAINED_BYTES} is cancelled instead.
 */
async function drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (body === null) return
  const reader = body.getReader()
  try {
    for (let read = 0; read <= MAX_DRAINED_BYTES;) {
      const chunk = await reader.read()
      if (chunk.done) return
      read += chunk.value.byteLength
    }
    await reader.cancel()
  } catch {
    // The connection failed while the body was read: the status stands, the socket is gone.
  } finally {
    reader.releaseLock()
  }
}
