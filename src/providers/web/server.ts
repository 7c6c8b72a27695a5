import { createServer } from 'node:http'
import type { IncomingMessage, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { WebSocket, WebSocketServer as SocketServer } from 'ws'
import type { UserQuestions } from '../../protocol/index.js'
import { newSecret } from '../../protocol/internal.js'
import type { Responder } from '../../vocabulary/index.js'
import { CONSOLE_RESTARTING_CODE, HOST_CLOSED_CODE } from '../../machines/index.js'
import { isApiTarget, serveApi } from './api.js'
import {
  checkToken,
  createHostCheck,
  createTokenCheck,
  hostForUrl,
  refuseUpgrade,
  requestUrl,
  serveRequest,
} from './http.js'
import type { TokenHolder } from './http.js'
import { createRelay } from './relay.js'
import type { Relay, RelayClient, RelayOptions } from './relay-types.js'
import { readUsers } from './users.js'
import type { WebConsoleUser } from './users.js'
import { ws } from './ws.js'

const { WebSocketServer } = ws

export { MIN_TOKEN_BITS, MIN_TOKEN_LENGTH } from './http.js'

/** The largest frame a client may send; a bigger one closes its connection with 1009. */
export const MAX_FRAME_BYTES = 1024 * 1024

/** A browser tab (or any WebSocket client) connected to the console. */
export interface WebConsoleClient extends RelayClient {
  /** The HTTP upgrade request it connected with (headers, URL), for `authorize`. */
  readonly request: IncomingMessage
  /**
   * The person whose token it presented, with `users` (`via: 'web'` for a
   * tab, `'http'` for an API request): who answers, for the record and for
   * `answerers`. Absent with the shared token, which names nobody.
   */
  readonly responder?: Responder
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
   * The people who may use the console (DESIGN §12), each with a token of
   * their own kept as its SHA-256: whoever presents it answers as that
   * person (the {@link WebConsoleClient.responder}), asks with `answerers`
   * are shown only to the people they admit, and an approval counts once per
   * person. With `users` there is no shared token: `token` may not be given,
   * `url` and `wsUrl` carry none (each person adds `?token=` their own), and
   * any token not in the list is refused. A list with a blank or duplicate
   * id, or a `tokenSha256` that is not 64 hex digits, makes
   * `startWebConsole` throw a `TypeError` naming it.
   * @default none: one shared token, whose holders are anonymous
   */
  users?: readonly WebConsoleUser[]
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
  /** The shared access token; `''` with `users`, where each person has their own. */
  token: string
  /** The relay behind the socket (pending asks, connected clients). */
  relay: Relay<WebConsoleClient>
  /**
   * Stops listening, disposes the relay (unregistering it from the seam: the
   * seam decides what becomes of each ask, and a durable keyed one stays
   * pending) and closes every client with close code 1012, "console
   * restarting". An open tab keeps what it shows, marked as reconnecting, and
   * reconnects when a console is back on the same port and token.
   *
   * With `sessionEnded: true` (the agent's work is done, and no console will
   * come back for it) every client is closed with 1001, "going away"
   * instead: an open tab says the session ended and stops reconnecting.
   * A second call returns the first one's promise, whatever its options.
   */
  close(options?: { sessionEnded?: boolean }): Promise<void>
}

/** How long `close()` waits for peers to finish the close handshake before cutting them. */
const CLOSE_GRACE_MS = 1000

/**
 * Starts the web console: one HTTP server that serves the console page and
 * the WebSocket endpoint of a relay registered as `seam`'s provider. It binds
 * loopback unless told otherwise and requires the token (a fresh random one
 * per start unless given) for the page and the socket; a WebSocket from a
 * foreign Origin is refused (a client with no Origin is judged by the token
 * alone); frames over 1 MiB close the connection (1009). The page runs under
 * a strict Content-Security-Policy and renders every model-written string as
 * text. The same server answers over HTTP (DESIGN §13): `GET /api/asks`,
 * `POST /api/asks/{askId}/answer` and `/cancel` with the token as
 * `Authorization: Bearer`, described by `GET /api/openapi.json`; a request
 * goes through the relay exactly as a tab's answer does, and hears 200 only
 * once the store committed it.
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
  const people = options.users === undefined ? undefined : usersOf(options)
  const token = people !== undefined ? '' : (options.token ?? newSecret())
  const tokens = createTokenCheck(people === undefined ? { token } : { users: people })
  const relayOptions: RelayOptions<WebConsoleClient> = {
    ...options.limits,
    responderOf: (client) => client.responder,
  }
  if (options.authorize !== undefined) relayOptions.authorize = options.authorize
  const relay = createRelay<WebConsoleClient>(options.seam, relayOptions)
  const allowedOrigins = new Set<string>()
  const extraHosts = new Set((options.hosts ?? []).map((name) => name.toLowerCase()))
  let boundPort = ''

  const isServedHost = createHostCheck(extraHosts, () => boundPort)

  const server = createServer((request, response) => {
    const servedHost = isServedHost(request.headers.host)
    if (servedHost && isApiTarget(request.url)) {
      serveApi(request, response, {
        relay,
        tokens,
        isAllowedOrigin: (origin) => allowedOrigins.has(origin),
      })
    } else {
      serveRequest(request, response, servedHost, tokens)
    }
  })

  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
  })

  /** Set by `close({ sessionEnded: true })`: clients are told the session is over, not restarting. */
  let sessionEnded = false
  const attach = (socket: WebSocket, request: IncomingMessage, holder: TokenHolder): void => {
    const client: WebConsoleClient = {
      request,
      ...(holder.user === undefined ? {} : { responder: { ...holder.user, via: 'web' } }),
      send: (data) => socket.send(data),
      // A client that does not read is cut at once; on disposal queued frames go out before the
      // close, which tells the tab the console is restarting (it ended no ask by stopping),
      // or that the session ended for good when `close` says so.
      close: (reason) =>
        reason === 'congested'
          ? socket.terminate()
          : sessionEnded
            ? socket.close(HOST_CLOSED_CODE, 'session ended')
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
    const holder = tokens(url.searchParams.get('token'))
    if (holder === undefined) {
      refuseUpgrade(socket, 401, 'Unauthorized', 'A valid token is required.\n')
      return
    }
    sockets.handleUpgrade(request, socket, head, (ws) => attach(ws, request, holder))
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
  const query = people === undefined ? `?token=${encodeURIComponent(token)}` : ''
  let closing: Promise<void> | undefined

  return {
    url: `http://${shownHost}:${port}/${query}`,
    wsUrl: `ws://${shownHost}:${port}/ws${query}`,
    token,
    relay,
    close(closeOptions) {
      closing ??= (async () => {
        // Anything but `sessionEnded: true` (no options, null, a typo) closes as restarting.
        sessionEnded = closeOptions?.sessionEnded === true
        relay.dispose()
        await stopServing(server, sockets)
      })()
      return closing
    },
  }
}

/** Waits for every client to finish the close handshake (cutting those that take too long), then stops listening. */
async function stopServing(server: Server, sockets: SocketServer): Promise<void> {
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
}

/** The people of `options.users`, read once; a mistake is a `TypeError` naming it. */
function usersOf(options: WebConsoleOptions) {
  if (options.token !== undefined) {
    throw new TypeError(
      'startWebConsole: token and users exclude each other: with users, each person signs in with their own token',
    )
  }
  try {
    return readUsers(options.users)
  } catch (error: unknown) {
    throw new TypeError(`startWebConsole: ${(error as Error).message}`, { cause: error })
  }
}
