import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isIP } from 'node:net'
import type { Duplex } from 'node:stream'
import { consoleScript, consoleStyles } from './page-assets.generated.js'
import { findUser } from './users.js'
import type { ConsoleUser } from './users.js'

/*
 * The console's HTTP side: which tokens it accepts, which Host names it
 * answers to, and what it sends (the page, under a strict policy).
 */

/** The shortest caller-supplied token {@link startWebConsole} accepts. */
export const MIN_TOKEN_LENGTH = 16

/** The fewest bits a caller-supplied token must carry by {@link estimatedTokenBits}. */
export const MIN_TOKEN_BITS = 40

/**
 * Bits in a token by the frequency of its characters (Shannon entropy times
 * length): `'aaaaaaaaaaaaaaaa'` has 0, sixteen random hex digits about 50, the
 * default 43-character base64url token over 200. An estimate, not a proof of
 * strength: it refuses repetitive tokens, not dictionary words.
 */
function estimatedTokenBits(token: string): number {
  const characters = [...token]
  const counts = new Map<string, number>()
  for (const character of characters) counts.set(character, (counts.get(character) ?? 0) + 1)
  let bitsPerCharacter = 0
  for (const count of counts.values()) {
    const share = count / characters.length
    bitsPerCharacter -= share * Math.log2(share)
  }
  return bitsPerCharacter * characters.length
}

export function checkToken(token: string): void {
  if ([...token].length < MIN_TOKEN_LENGTH) {
    throw new TypeError(
      `startWebConsole: token is too short (rule: at least ${MIN_TOKEN_LENGTH} characters); omit it to get a random one`,
    )
  }
  if (estimatedTokenBits(token) < MIN_TOKEN_BITS) {
    throw new TypeError(
      `startWebConsole: token is too predictable (rule: at least ${MIN_TOKEN_BITS} bits by character frequency; it repeats too few characters); omit it to get a random one`,
    )
  }
}

/** The name part of a Host header value: `[::1]:80` → `[::1]`, `a.b:80` → `a.b`. */
export function splitHost(value: string): { name: string; port: string | undefined } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(value)
  return match === null ? { name: '', port: undefined } : { name: match[1] ?? '', port: match[2] }
}

/** An IPv4 literal or a bracketed IPv6 literal: a name no DNS answer can rebind. */
export function isIpLiteral(name: string): boolean {
  if (name.startsWith('[') && name.endsWith(']')) return isIP(name.slice(1, -1)) === 6
  return isIP(name) === 4
}

/**
 * Which Host header values the console serves: `extraHosts` as given, and
 * loopback names and IP literals on its own port (`boundPort()`, known once
 * it listens).
 *
 * DNS rebinding: a page on attacker.example, whose name the attacker points
 * at this address, is same-origin with the console as far as the browser
 * knows, and its requests carry Host: attacker.example. Only names no DNS
 * answer can rebind (loopback names, IP literals) on our port are served.
 */
export function createHostCheck(
  extraHosts: ReadonlySet<string>,
  boundPort: () => string,
): (value: string | undefined) => boolean {
  return (value) => {
    if (value === undefined) return false
    const lower = value.toLowerCase()
    if (extraHosts.has(lower)) return true
    const { name, port } = splitHost(lower)
    const own = boundPort()
    if (port !== own && !(port === undefined && own === '80')) return false
    return name === 'localhost' || isIpLiteral(name)
  }
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>askseam console</title>
<link rel="stylesheet" href="/console.css">
<script type="module" src="/console.js"></script>
</head>
<body>
<noscript>The askseam console needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`

/** The request's path and query, or `undefined` when the request target does not parse. */
export function requestUrl(request: IncomingMessage): URL | undefined {
  try {
    return new URL(request.url ?? '/', 'http://console.invalid')
  } catch {
    return undefined
  }
}

/**
 * Who presented an accepted token: the console's shared token names nobody
 * (`user` absent); with `users`, each token names its person.
 */
export interface TokenHolder {
  readonly user?: ConsoleUser
}

/** Reads a presented token: its holder, or `undefined` when no accepted token matches. */
export type TokenCheck = (given: string | null | undefined) => TokenHolder | undefined

/**
 * The check for the console's token(s): the page's `?token=`, the socket's,
 * and the HTTP API's `Authorization: Bearer` all go through it. Either the
 * one shared token, or (with `users`) one token per person and no shared
 * one; either way compared in constant time, every accepted token, whichever
 * matches.
 */
export function createTokenCheck(
  accepted: { token: string } | { users: readonly { user: ConsoleUser; digest: Buffer }[] },
): TokenCheck {
  if ('users' in accepted) {
    const { users } = accepted
    return (given) => {
      if (given === null || given === undefined) return undefined
      const user = findUser(users, given)
      return user === undefined ? undefined : { user }
    }
  }
  const bytes = Buffer.from(accepted.token, 'utf8')
  return (given) => {
    if (given === null || given === undefined) return undefined
    return sameToken(given, bytes) ? {} : undefined
  }
}

/** Compares two tokens in constant time (for equal lengths; a length mismatch is refused outright). */
export function sameToken(given: string | null, expected: Buffer): boolean {
  if (given === null) return false
  const buffer = Buffer.from(given, 'utf8')
  if (buffer.length !== expected.length) {
    timingSafeEqual(expected, expected)
    return false
  }
  return timingSafeEqual(buffer, expected)
}

export function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

export function send(
  response: ServerResponse,
  status: number,
  type: string,
  body: string,
  head = false,
): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
  })
  response.end(head ? undefined : body)
}

export function refuseUpgrade(socket: Duplex, status: number, reason: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

/** Serves one HTTP request: the page (with its token), its script and styles; nothing else. */
export function serveRequest(
  request: IncomingMessage,
  response: ServerResponse,
  servedHost: boolean,
  tokens: TokenCheck,
): void {
  const head = request.method === 'HEAD'
  if (!servedHost) {
    send(
      response,
      421,
      'text/plain; charset=utf-8',
      'This console answers only to its loopback address (the Host header names another server).\n',
      head,
    )
    return
  }
  if (request.method !== 'GET' && !head) {
    send(response, 405, 'text/plain; charset=utf-8', 'Only GET is served here.\n', head)
    return
  }
  const url = requestUrl(request)
  switch (url?.pathname) {
    case '/':
      if (tokens(url?.searchParams.get('token')) === undefined) {
        send(
          response,
          401,
          'text/plain; charset=utf-8',
          'This console needs its token: open the exact URL the host printed.\n',
          head,
        )
        return
      }
      send(response, 200, 'text/html; charset=utf-8', PAGE, head)
      return
    case '/console.js':
      send(response, 200, 'text/javascript; charset=utf-8', consoleScript, head)
      return
    case '/console.css':
      send(response, 200, 'text/css; charset=utf-8', consoleStyles, head)
      return
    case '/favicon.ico':
      response.writeHead(204, SECURITY_HEADERS).end()
      return
    default:
      send(response, 404, 'text/plain; charset=utf-8', 'Not found.\n', head)
  }
}
