import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

/** A fresh Standard Webhooks secret. */
export const testSecret = (): string =>
  `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`

/** One request the receiver took, verified as a real receiver would. */
export interface Receipt {
  id: string
  type: string
  payload: { type: string; timestamp: string; data: Record<string, unknown> }
  /** What the receiver answered. */
  status: number
}

/**
 * How the receiver answers one request: a status (with optional headers),
 * or `'hang'` (holds the request open until the receiver closes), or
 * `'destroy'` (drops the connection).
 */
export type Answer =
  number | 'hang' | 'destroy' | { status: number; headers?: Record<string, string>; body?: string }

/**
 * A webhook receiver on loopback that verifies every delivery with the
 * `standardwebhooks` package: an unverified request fails the test (it is
 * kept in `rejected`). `answer` decides each reply (default 200).
 */
export async function startReceiver(
  secret: string,
  answer: (request: { id: string; type: string; count: number }) => Answer = () => 200,
) {
  const verifier = new Webhook(secret)
  const receipts: Receipt[] = []
  const rejected: unknown[] = []
  const hanging = new Map<ServerResponse, Receipt>()
  const counts = new Map<string, number>()
  /** Requests received and not yet answered (or dropped), and the most there were at once. */
  const open = { now: 0, most: 0 }
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    open.now += 1
    open.most = Math.max(open.most, open.now)
    let closed = false
    const done = () => {
      if (!closed) open.now -= 1
      closed = true
    }
    response.on('finish', done)
    response.on('close', done)
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let payload: Receipt['payload']
      try {
        payload = verifier.verify(
          body,
          request.headers as Record<string, string>,
        ) as Receipt['payload']
      } catch (error: unknown) {
        rejected.push(error)
        response.writeHead(400).end()
        return
      }
      const id = String(request.headers['webhook-id'])
      const count = (counts.get(id) ?? 0) + 1
      counts.set(id, count)
      const reply = answer({ id, type: payload.type, count })
      if (reply === 'hang') {
        const receipt = { id, type: payload.type, payload, status: 0 }
        hanging.set(response, receipt)
        receipts.push(receipt)
        return
      }
      if (reply === 'destroy') {
        request.socket.destroy()
        return
      }
      const status = typeof reply === 'number' ? reply : reply.status
      receipts.push({ id, type: payload.type, payload, status })
      if (typeof reply === 'number') response.writeHead(status).end()
      else response.writeHead(status, reply.headers ?? {}).end(reply.body)
    })
  })
  let connections = 0
  server.on('connection', () => (connections += 1))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    receipts,
    rejected,
    /** How many TCP connections the receiver accepted. */
    connections: (): number => connections,
    /** How many requests are open now (received, not yet answered). */
    openNow: (): number => open.now,
    /** The most requests that were open at once. */
    mostOpen: (): number => open.most,
    /** Answers every request held open (`'hang'`) with `status`. */
    answerHeld(status = 200): void {
      for (const [response, receipt] of hanging) {
        receipt.status = status
        response.writeHead(status).end()
      }
      hanging.clear()
    },
    /** Receipts answered 2xx, by webhook-id: what was delivered. */
    delivered(): Map<string, Receipt[]> {
      const byId = new Map<string, Receipt[]>()
      for (const receipt of receipts) {
        if (receipt.status < 200 || receipt.status >= 300) continue
        byId.set(receipt.id, [...(byId.get(receipt.id) ?? []), receipt])
      }
      return byId
    },
    async close(): Promise<void> {
      for (const response of hanging.keys()) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Waits until `check` holds (polling), for at most `limitMs`. */
export async function until(check: () => boolean, what: string, limitMs = 20_000): Promise<void> {
  const end = Date.now() + limitMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
