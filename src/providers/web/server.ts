import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isIP } from 'node:net'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import type { UserQuestions } from '../../protocol/index.js'
import { CONSOLE_RESTARTING_CODE } from '../../machines/index.js'
import { consoleScript, consoleStyles } from './page-assets.generated.js'
import { createRelay } from './relay.js'
import type { Relay, RelayClient, RelayOptions } from './relay.js'
import { ws } from './ws.js'

const { WebSocketServer } = ws

/** The largest frame a client may send; a bigger one closes its connection with 1009. */
export const MAX_FRAME_BYTES = 1024 * 1024

/** A browser tab (or any WebSocket client) connected to the console. */
export interface WebConsoleClient extends RelayClient {
  /** The HTTP upgrade request it connected with (headers, URL), for `authorize`. */
  readonly request: IncomingMessage
}

/** Options of {@link startWebConsole}. */
export interface WebConsoleOptions {
  /** The seam whose asks the console shows; the console registers itself as its provider. */
  seam: Pick<UserQuestions, 'registerProvider'>
  /** The address to listen on. @default '127.0.0.1' (loopback only) */
  host?: string
  /** The port to listen on; 0 picks a free one. @default 0 */
  port?: number
  /**
   * The access token. One given here must be at least
   * {@link MIN_TOKEN_LENGTH} characters with at least {@link MIN_TOKEN_BITS}
   * bits by a character-frequency estimate (so neither `'a'` nor
   * `'aaaaaaaaaaaaaaaa'` passes); a weaker one makes `startWebConsole` throw a
   * `TypeError` naming the rule.
   * @default 32 random bytes, base64url, new on every start
   */
  token?: string
  /**
   * Which sessions (asking agents' ids) a client may see and answer; the
   * client carries its upgrade `request`. @default every client sees every session
   */
  authorize?: (client: WebConsoleClient, sessionId: string | undefined) => boolean
  /**
   * Origins allowed besides the console's own (`http://127.0.0.1:PORT`,
   * `http://localhost:PORT`, `http://[::1]:PORT`, or the bound host's).
   * @default []
   */
  origins?: readonly string[]
  /**
   * Host header values served besides loopback names and IP literals on the
   * console's port (e.g. `'console.example.internal:8080'` behind a proxy).
   * Any other Host is refused with 421 before anything is served: a page on a
   * DNS-rebinding name that resolves to this address cannot reach the console.
   * @default []
   */
  hosts?: readonly string[]
  /** Rate limit and backlog bound of each client (see {@link RelayOptions}). */
  limits?: Pick<
    RelayOptions,
    'maxFramesPerWindow' | 'rateWindowMs' | 'maxBufferedBytes' | 'stallTimeoutMs' | 'framesPerTurn'
  >
}

/** A running web console. */
export interface WebConsole {
  /** The console page; it carries the token, so only whoever holds it can open the page. */
  url: string
  /** The WebSocket endpoint, token included. */
  wsUrl: string
  /** The access token. */
  token: string
  /** The relay behind the socket (pending asks, connected clients). */
  relay: Relay<WebConsoleClient>
  /**
   * Stops listening, disposes the relay (unregistering it from the seam: the
   * seam decides what becomes of each ask, and a durable keyed one stays
   * pending) and closes every client with close code 1012, "console
   * restarting". An open tab keeps what it shows, marked as reconnecting, and
   * reconnects when a console is back on the same port and token.
   */
  close(): Promise<void>
}

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

function checkToken(token: string): void {
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
function splitHost(value: string): { name: string; port: string | undefined } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(value)
  return match === null ? { name: '', port: undefined } : { name: match[1] ?? '', port: match[2] }
}

/** An IPv4 literal or a bracketed IPv6 literal: a name no DNS answer can rebind. */
function isIpLiteral(name: string): boolean {
  if (name.startsWith('[') && name.endsWith(']')) return isIP(name.slice(1, -1)) === 6
  return isIP(name) === 4
}

/** How long `close()` waits for peers to finish the close handshake before cutting them. */
const CLOSE_GRACE_MS = 1000

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

const SECURITY_HEADERS: Record<string, string> = {
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
function requestUrl(request: IncomingMessage): URL | undefined {
  try {
    return new URL(request.url ?? '/', 'http://console.invalid')
  } catch {
    return undefined
  }
}

/** Compares two tokens in constant time (for equal lengths; a length mismatch is refused outright). */
function sameToken(given: string | null, expected: Buffer): boolean {
  if (given === null) return false
  const buffer = Buffer.from(given, 'utf8')
  if (buffer.length !== expected.length) {
    timingSafeEqual(expected, expected)
    return false
  }
  return timingSafeEqual(buffer, expected)
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

function send(
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

function refuseUpgrade(socket: Duplex, status: number, reason: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

/**
 * Starts the web console: one HTTP server that serves the console page and
 * the WebSocket endpoint of a relay registered as `seam`'s provider. It binds
 * loopback unless told otherwise and requires the token (a fresh random one
 * per start unless given) for the page and the socket; a WebSocket from a
 * foreign Origin is refused (a client with no Origin is judged by the token
 * alone); frames over 1 MiB close the connection (1009). The page runs under
 * a strict Content-Security-Policy and renders every model-written string as
 * text.
 *
 * @example
 * ```ts
 * const seam = createUserQuestions({ timeoutMs: 600_000 })
 * const web = await startWebConsole({ seam })
 * console.log(`Answer in your browser: ${web.url}`)
 * const answer = await seam.ask({ questions })
 * await web.close()
 * ```
 */
export async function startWebConsole(options: WebConsoleOptions): Promise<WebConsole> {
  const host = options.host ?? '127.0.0.1'
  if (options.token !== undefined) {
    if (typeof options.token !== 'string')
      throw new TypeError('startWebConsole: token must be a string')
    checkToken(options.token)
  }
  const token = options.token ?? randomBytes(32).toString('base64url')
  const expected = Buffer.from(token, 'utf8')
  const relayOptions: RelayOptions<WebConsoleClient> = { ...options.limits }
  if (options.authorize !== undefined) relayOptions.authorize = options.authorize
  const relay = createRelay<WebConsoleClient>(options.seam, relayOptions)
  const allowedOrigins = new Set<string>()
  const extraHosts = new Set((options.hosts ?? []).map((name) => name.toLowerCase()))
  let boundPort = ''

  // DNS rebinding: a page on attacker.example, whose name the attacker points
  // at this address, is same-origin with the console as far as the browser
  // knows, and its requests carry Host: attacker.example. Only names no DNS
  // answer can rebind (loopback names, IP literals) on our port are served.
  const isServedHost = (value: string | undefined): boolean => {
    if (value === undefined) return false
    const lower = value.toLowerCase()
    if (extraHosts.has(lower)) return true
    const { name, port } = splitHost(lower)
    if (port !== boundPort && !(port === undefined && boundPort === '80')) return false
    return name === 'localhost' || isIpLiteral(name)
  }

  const server = createServer((request, response) => {
    const head = request.method === 'HEAD'
    if (!isServedHost(request.headers.host)) {
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
        if (!sameToken(url?.searchParams.get('token') ?? null, expected)) {
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
  })

  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
  })

  const attach = (socket: WebSocket, request: IncomingMessage): void => {
    const client: WebConsoleClient = {
      request,
      send: (data) => socket.send(data),
      // A client that does not read is cut at once; on disposal queued frames go out before the
      // close, which tells the tab the console is restarting: it ended no ask by stopping.
      close: (reason) =>
        reason === 'congested'
          ? socket.terminate()
          : socket.close(CONSOLE_RESTARTING_CODE, 'console restarting'),
      get bufferedAmount() {
        return socket.bufferedAmount
      },
    }
    const connection = relay.connect(client)
    socket.on('message', (data) => connection.receive(String(data)))
    socket.on('close', () => connection.disconnect())
    // ws reports protocol faults (e.g. a frame over maxPayload) here and closes the socket itself.
    socket.on('error', () => connection.disconnect())
  }

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    if (!isServedHost(request.headers.host)) {
      refuseUpgrade(
        socket,
        421,
        'Misdirected Request',
        'This console answers only to its loopback address.\n',
      )
      return
    }
    const url = requestUrl(request)
    if (url?.pathname !== '/ws') {
      refuseUpgrade(socket, 404, 'Not Found', 'The WebSocket endpoint is /ws.\n')
      return
    }
    const origin = request.headers.origin
    if (origin !== undefined && !allowedOrigins.has(origin)) {
      refuseUpgrade(socket, 403, 'Forbidden', 'This origin may not connect to the console.\n')
      return
    }
    if (!sameToken(url.searchParams.get('token'), expected)) {
      refuseUpgrade(socket, 401, 'Unauthorized', 'A valid token is required.\n')
      return
    }
    sockets.handleUpgrade(request, socket, head, (ws) => attach(ws, request))
  })

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error: unknown) {
    relay.dispose()
    throw error
  }

  const { port } = server.address() as AddressInfo
  boundPort = String(port)
  const shownHost = hostForUrl(host)
  for (const name of [shownHost, '127.0.0.1', 'localhost', '[::1]']) {
    allowedOrigins.add(`http://${name}:${port}`)
  }
  for (const origin of options.origins ?? []) allowedOrigins.add(origin)
  // The name the console was told to bind is the one its printed URL carries.
  extraHosts.add(`${shownHost}:${port}`.toLowerCase())
  const query = `token=${encodeURIComponent(token)}`
  let closing: Promise<void> | undefined

  return {
    url: `http://${shownHost}:${port}/?${query}`,
    wsUrl: `ws://${shownHost}:${port}/ws?${query}`,
    token,
    relay,
    close() {
      closing ??= (async () => {
        relay.dispose()
        const open = [...sockets.clients]
        // Peers get a moment to complete the close handshake; then they are cut.
        const cut = setTimeout(() => open.forEach((socket) => socket.terminate()), CLOSE_GRACE_MS)
        await Promise.all(
          open.map(
            (socket) =>
              new Promise<void>((resolve) => {
                if (socket.readyState === socket.CLOSED) resolve()
                else socket.once('close', () => resolve())
              }),
          ),
        )
        clearTimeout(cut)
        sockets.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
      })()
      return closing
    },
  }
}
