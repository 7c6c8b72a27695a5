import type { Server } from '@modelcontextprotocol/sdk/server/index.js'

/**
 * What the SDK reports through `onerror` that is the normal end of an
 * elicitation, not a fault: a client may answer after the request was
 * cancelled or timed out (the spec lets it; the sender ignores the answer),
 * and a cancellation cannot reach a client that is already gone. A host that
 * logs `onerror` (as `askseam mcp` does) would print an alarming "protocol
 * error" line for each; these are kept out of `onerror`, everything else
 * goes through unchanged.
 */
export interface LateResponseFilter {
  /** The id the server's next request will get, read just before sending it; `undefined` if unknown. */
  nextRequestId(): number | undefined
  /** A response to request `id` may still arrive, and is to be ignored quietly. */
  expectLate(id: number): void
}

/** How many taken-down request ids are remembered; the oldest is forgotten first. */
const MAX_EXPECTED = 10_000

const LATE_RESPONSE = /^Received a response for an unknown message ID: (.*)$/s
const UNDELIVERED_CANCEL = /^Failed to send cancellation: /
const GONE = /EPIPE|ECONNRESET|not connected|closed|destroyed|write after end/i

interface ServerInternals {
  _onerror?: (error: Error) => void
  _requestMessageId?: unknown
}

const filters = new WeakMap<Server, LateResponseFilter>()

function responseId(message: string): unknown {
  const match = LATE_RESPONSE.exec(message)
  if (match === null) return undefined
  try {
    return (JSON.parse(match[1] ?? '') as { id?: unknown }).id
  } catch {
    return undefined
  }
}

/**
 * Installs (once per server) a filter in front of the SDK's error dispatch.
 * The SDK's `Protocol` routes every error through its `_onerror` method
 * before the public `onerror`, so wrapping that method on this instance sees
 * them all, whenever the host sets `onerror`. SDK 1.32.2 internals: when the
 * method is missing, nothing is filtered.
 */
export function createLateResponseFilter(server: Server): LateResponseFilter {
  const existing = filters.get(server)
  if (existing !== undefined) return existing
  const internals = server as unknown as ServerInternals
  const expected = new Set<number>()
  const original = internals._onerror
  if (typeof original === 'function') {
    internals._onerror = (error: Error) => {
      const message = typeof error?.message === 'string' ? error.message : ''
      const id = responseId(message)
      if (typeof id === 'number' && expected.delete(id)) return
      if (
        UNDELIVERED_CANCEL.test(message) &&
        (server.transport === undefined || GONE.test(message))
      ) {
        return
      }
      original.call(server, error)
    }
  }
  const filter: LateResponseFilter = {
    nextRequestId() {
      const next = internals._requestMessageId
      return typeof next === 'number' ? next : undefined
    },
    expectLate(id) {
      expected.add(id)
      if (expected.size > MAX_EXPECTED) {
        const oldest = expected.values().next()
        if (oldest.done !== true) expected.delete(oldest.value)
      }
    },
  }
  filters.set(server, filter)
  return filter
}
