import type { IncomingMessage, ServerResponse } from 'node:http'
import { ApiErrorCodes, MAX_ASK_ID_LENGTH, MAX_BODY_BYTES } from './api-errors.js'
import type { ApiErrorCode } from './api-errors.js'
import { SECURITY_HEADERS } from './http.js'
import type { TokenCheck } from './http.js'
import { openApiDocument } from './openapi.js'
import type { Relay, RelayReceipt } from './relay-types.js'
import type { WebConsoleClient } from './server.js'

/*
 * The console's HTTP API (DESIGN §13): list the asks a token may answer,
 * answer or dismiss one. A request is a relay client that sends one response
 * and hears one receipt, so a script is held to exactly the rules a console
 * tab is: the same checks, the same ask machine, the same commit.
 */

/** What the API needs from the console around it. */
export interface ApiContext {
  relay: Relay<WebConsoleClient>
  tokens: TokenCheck
  /** Whether a browser page of this Origin may call the API. */
  isAllowedOrigin(origin: string): boolean
}

/** One served path: the methods it takes and what answers it. */
type Route =
  | { kind: 'openapi' }
  | { kind: 'list' }
  | { kind: 'answer' | 'cancel'; askId: string }
  | { kind: 'bad-path' }
  | { kind: 'not-found' }

const ASK_ID = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_ASK_ID_LENGTH}}$`)

/** Whether a request target belongs to the API (the raw target: `/api` or `/api/…`). */
export function isApiTarget(target: string | undefined): boolean {
  const path = (target ?? '').split('?', 1)[0] ?? ''
  return path === '/api' || path.startsWith('/api/')
}

/**
 * Reads the raw request target, not a normalised URL: `/api/asks/../x` must
 * not become `/api/x`, and `%2F` must not become a slash. A segment that is
 * `.` or `..`, or an ask id outside the console's alphabet (escapes, dots,
 * over {@link MAX_ASK_ID_LENGTH}), is `bad-path`: never a lookup of something else.
 */
function route(target: string): Route {
  const segments = (target.split('?', 1)[0] ?? '').split('/').slice(1)
  if (segments.some((segment) => segment === '.' || segment === '..')) return { kind: 'bad-path' }
  const [api, collection, askId, action, ...rest] = segments
  if (api !== 'api' || rest.length > 0) return { kind: 'not-found' }
  if (collection === 'openapi.json' && askId === undefined) return { kind: 'openapi' }
  if (collection !== 'asks') return { kind: 'not-found' }
  if (askId === undefined) return { kind: 'list' }
  if (action !== 'answer' && action !== 'cancel') return { kind: 'not-found' }
  if (!ASK_ID.test(askId)) return { kind: 'bad-path' }
  return { kind: action, askId }
}

const ALLOWED: Record<'openapi' | 'list' | 'answer' | 'cancel', string> = {
  openapi: 'GET',
  list: 'GET',
  answer: 'POST',
  cancel: 'POST',
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  })
  response.end(text)
}

function sendError(
  response: ServerResponse,
  status: number,
  error: ApiErrorCode,
  message: string,
  extra: { details?: Readonly<Record<string, unknown>>; headers?: Record<string, string> } = {},
): void {
  sendJson(
    response,
    status,
    extra.details === undefined ? { error, message } : { error, message, details: extra.details },
    extra.headers,
  )
}

/**
 * The `Bearer` credential of an `Authorization` header, or `undefined`. Taken
 * as sent, not held to RFC 6750's character set: a token given to
 * `startWebConsole` may be any string (spaces included).
 */
function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer +(.+?) *$/i.exec(header ?? '')
  return match?.[1]
}

type Body = { ok: true; text: string } | { ok: false }

/** Reads the body up to {@link MAX_BODY_BYTES}; past it, reading stops and nothing is kept. */
function readBody(request: IncomingMessage): Promise<Body> {
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.resolve({ ok: false })
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        request.off('data', onData)
        request.pause()
        chunks.length = 0
        resolve({ ok: false })
        return
      }
      chunks.push(chunk)
    }
    request.on('data', onData)
    request.once('end', () => resolve({ ok: true, text: Buffer.concat(chunks).toString('utf8') }))
    request.once('error', () => resolve({ ok: false }))
  })
}

/** The body as JSON; `undefined` for an empty body, `invalid` when it does not parse. */
function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: undefined }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false }
  }
}

/**
 * A dismissal's `result`, as a tab sends it, from a cancel's body: none, or
 * `{ reason? }`; the reason is read where a tab's is (`interpretResult`).
 * `undefined` for a body of another shape.
 */
function cancelResult(body: unknown): unknown {
  if (body === undefined) return { ok: false, error: { code: 'cancelled' } }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  return { ok: false, error: { code: 'cancelled', reason: (body as { reason?: unknown }).reason } }
}

function sendReceipt(response: ServerResponse, receipt: RelayReceipt): void {
  if (receipt.accepted) {
    // A vote kept is accepted too; `counted` says the ask still waits for more approvals.
    sendJson(
      response,
      200,
      receipt.counted === undefined
        ? { accepted: true }
        : { accepted: true, counted: receipt.counted },
    )
    return
  }
  switch (receipt.reason) {
    case 'not-pending':
      sendError(
        response,
        409,
        ApiErrorCodes.NOT_PENDING,
        'the ask is not pending: it was answered elsewhere, ended, or never existed',
      )
      return
    case 'forbidden':
      sendError(response, 403, ApiErrorCodes.FORBIDDEN, 'this token may not answer this ask')
      return
    case 'already-voted':
      sendError(
        response,
        409,
        ApiErrorCodes.ALREADY_VOTED,
        'this person has approved this ask already; it waits for other approvers',
      )
      return
    case 'bad-response':
      sendError(
        response,
        422,
        ApiErrorCodes.BAD_RESPONSE,
        receipt.message ?? 'the answer does not fit the questions',
        receipt.details === undefined ? {} : { details: receipt.details },
      )
  }
}

/**
 * Serves one request under `/api`. The order of the checks is the order a
 * refusal is given in: unknown path, wrong method, foreign Origin, missing
 * token, path tricks, then the body.
 */
export function serveApi(
  request: IncomingMessage,
  response: ServerResponse,
  context: ApiContext,
): void {
  const target = route(request.url ?? '/')
  if (target.kind === 'not-found') {
    sendError(response, 404, ApiErrorCodes.NOT_FOUND, 'nothing is served at this path')
    return
  }
  if (target.kind !== 'bad-path' && request.method !== ALLOWED[target.kind]) {
    sendError(
      response,
      405,
      ApiErrorCodes.METHOD_NOT_ALLOWED,
      `this path takes ${ALLOWED[target.kind]}`,
      { headers: { Allow: ALLOWED[target.kind] } },
    )
    return
  }
  const origin = request.headers.origin
  if (origin !== undefined && !context.isAllowedOrigin(origin)) {
    sendError(response, 403, ApiErrorCodes.FORBIDDEN, 'this origin may not call the console')
    return
  }
  if (target.kind === 'openapi') {
    sendJson(response, 200, openApiDocument)
    return
  }
  const holder = context.tokens(bearerToken(request.headers.authorization))
  if (holder === undefined) {
    sendError(
      response,
      401,
      ApiErrorCodes.UNAUTHORIZED,
      'send the console token as Authorization: Bearer <token>',
      { headers: { 'WWW-Authenticate': 'Bearer realm="askseam"' } },
    )
    return
  }
  if (target.kind === 'bad-path') {
    sendError(response, 400, ApiErrorCodes.BAD_PATH, 'the path does not name an ask')
    return
  }
  // The request stands for the client that sends it, for `authorize` as an upgrade request does;
  // its token's person is who answers.
  const client: WebConsoleClient = {
    request,
    ...(holder.user === undefined ? {} : { responder: { ...holder.user, via: 'http' } }),
    send: () => undefined,
    close: () => undefined,
  }
  if (target.kind === 'list') {
    sendJson(response, 200, { asks: context.relay.asksFor(client) })
    return
  }
  void respond(request, response, context.relay, client, target)
}

async function respond(
  request: IncomingMessage,
  response: ServerResponse,
  relay: Relay<WebConsoleClient>,
  client: WebConsoleClient,
  target: { kind: 'answer' | 'cancel'; askId: string },
): Promise<void> {
  const body = await readBody(request)
  if (!body.ok) {
    // What is still coming is not read: the connection closes once the refusal is out.
    sendError(
      response,
      413,
      ApiErrorCodes.PAYLOAD_TOO_LARGE,
      `the body is larger than ${MAX_BODY_BYTES} bytes`,
      { headers: { Connection: 'close' } },
    )
    return
  }
  const parsed = parseJson(body.text)
  if (!parsed.ok || (target.kind === 'answer' && parsed.value === undefined)) {
    sendError(response, 400, ApiErrorCodes.INVALID_JSON, 'the body must be JSON text')
    return
  }
  const result =
    target.kind === 'answer' ? { ok: true, value: parsed.value } : cancelResult(parsed.value)
  if (result === undefined) {
    const message = 'the body must be { "reason": "dismissed" | "discuss" }, or empty'
    sendError(response, 422, ApiErrorCodes.BAD_RESPONSE, message)
    return
  }
  sendReceipt(response, await relay.respond(client, target.askId, result))
}
