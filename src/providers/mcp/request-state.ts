import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { UserQuestionError } from '../../protocol/index.js'
import { canonicalJson } from '../../protocol/internal.js'

/*
 * The sealed `requestState` of a multi-round-trip tool call (DESIGN §14): the
 * client carries it from one round to the next, so it is attacker-controlled
 * input when it comes back. It is signed, not encrypted: the body says which
 * asks the call is waiting on, which the client may read.
 *
 * Wire shape: base64url(body) "." base64url(HMAC-SHA256(secret, DOMAIN + body)).
 */

/** Domain separation: a MAC made for anything else never verifies as a requestState. */
const DOMAIN = 'askseam.mcp.requestState.v1\0'

/** The shortest fleet secret accepted, in bytes. */
export const MIN_SECRET_BYTES = 32

/** How long a sealed requestState is honoured by default: one hour. */
export const DEFAULT_STATE_TTL_MS = 3_600_000

/** One ask of the call, as the state names it. */
export interface SealedAsk {
  /** The key of the `inputRequests` entry that puts this ask to the user. */
  requestKey: string
  askId: string
  /** The ask's key in the store (asks of a round trip always have one). */
  key: string
}

/** What a requestState binds: the call it belongs to. */
export interface StateBinding {
  /** The MCP method, `tools/call`. */
  method: string
  /** {@link callDigest} of the tool's name and arguments. */
  call: string
  /** The client's identity when known (an OAuth client id, else the client's declared name). */
  client?: string
}

/** What a requestState carries. */
export interface StatePayload {
  /** The call's own id, minted on its first round: the derived keys of its asks start with it. */
  callId: string
  asks: SealedAsk[]
}

interface Body extends StatePayload {
  v: 1
  method: string
  call: string
  client: string | null
  /** Epoch milliseconds. */
  exp: number
}

/** Why a requestState was refused; `details.reason` of the error. */
export type StateRefusal = 'malformed' | 'signature' | 'expired' | 'binding'

/**
 * The one error every refused requestState gives, whatever was wrong with
 * it: `INVALID_REQUEST` with `details.field: 'requestState'` and the same
 * message. `details.reason` says which check refused it; only a state this
 * fleet sealed gets past the signature to `expired` or `binding`, so it tells
 * a forger nothing.
 */
export function requestStateError(reason: StateRefusal): UserQuestionError {
  return new UserQuestionError(
    'The requestState is not valid for this call: it was altered, belongs to another call or client, or has expired. Call the tool again without it.',
    'INVALID_REQUEST',
    { details: { field: 'requestState', reason } },
  )
}

/** The digest that names a tool call: its name and arguments, as canonical JSON. */
export function callDigest(name: string, args: unknown): string {
  return createHash('sha256')
    .update(canonicalJson({ name, arguments: args ?? {} }))
    .digest('base64url')
}

/** The secret as bytes, or a `TypeError` for one too short to be a secret. */
export function secretBytes(secret: string | Uint8Array): Buffer {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret)
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new TypeError(
      `the requestState secret must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes.length}); every instance serving the same clients needs the same one`,
    )
  }
  return bytes
}

function mac(secret: Buffer, body: string): Buffer {
  return createHmac('sha256', secret).update(DOMAIN).update(body).digest()
}

/** Seals `payload` for the call `binding` names, valid until `expiresAt` (epoch ms). */
export function sealRequestState(
  secret: Buffer,
  payload: StatePayload,
  binding: StateBinding,
  expiresAt: number,
): string {
  const body: Body = {
    v: 1,
    method: binding.method,
    call: binding.call,
    client: binding.client ?? null,
    exp: expiresAt,
    callId: payload.callId,
    asks: payload.asks.map(({ requestKey, askId, key }) => ({ requestKey, askId, key })),
  }
  const encoded = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url')
  return `${encoded}.${mac(secret, encoded).toString('base64url')}`
}

const BASE64URL = /^[A-Za-z0-9_-]+$/

function isSealedAsk(value: unknown): value is SealedAsk {
  if (typeof value !== 'object' || value === null) return false
  const { requestKey, askId, key } = value as Record<string, unknown>
  return typeof requestKey === 'string' && typeof askId === 'string' && typeof key === 'string'
}

function parseBody(text: string): Body | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const body = value as Record<string, unknown>
  if (
    body.v !== 1 ||
    typeof body.method !== 'string' ||
    typeof body.call !== 'string' ||
    !(typeof body.client === 'string' || body.client === null) ||
    typeof body.exp !== 'number' ||
    typeof body.callId !== 'string' ||
    !Array.isArray(body.asks) ||
    !body.asks.every(isSealedAsk)
  ) {
    return undefined
  }
  return body as unknown as Body
}

/**
 * Opens a requestState sealed by {@link sealRequestState} for the call
 * `binding` names, or throws {@link requestStateError}: not two base64url
 * parts, a signature that does not verify (compared in constant time), a body
 * that does not parse, a state past its expiry at `now`, or one bound to
 * another method, call or client.
 */
export function openRequestState(
  secret: Buffer,
  state: unknown,
  binding: StateBinding,
  now: number,
): StatePayload {
  if (typeof state !== 'string' || state.length > 65_536) throw requestStateError('malformed')
  const parts = state.split('.')
  const [encoded, signature] = parts
  if (
    parts.length !== 2 ||
    encoded === undefined ||
    signature === undefined ||
    !BASE64URL.test(encoded) ||
    !BASE64URL.test(signature)
  ) {
    throw requestStateError('malformed')
  }
  const expected = mac(secret, encoded)
  const given = Buffer.from(signature, 'base64url')
  // The canonical encoding only: a signature with stray trailing bits is another string, so it is refused too.
  if (
    given.length !== expected.length ||
    given.toString('base64url') !== signature ||
    !timingSafeEqual(given, expected)
  ) {
    throw requestStateError('signature')
  }
  const body = parseBody(Buffer.from(encoded, 'base64url').toString('utf8'))
  if (body === undefined) throw requestStateError('malformed')
  if (body.exp <= now) throw requestStateError('expired')
  if (
    body.method !== binding.method ||
    body.call !== binding.call ||
    body.client !== (binding.client ?? null)
  ) {
    throw requestStateError('binding')
  }
  return { callId: body.callId, asks: body.asks }
}
