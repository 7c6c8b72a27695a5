import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { loadServerSdk, openRoundTripServing } from './mcp-modern.js'
import { exitOnSecondSignal, untilStopped } from './signals.js'
import type { RoundTripServingOptions } from './mcp-modern.js'

/*
 * `askseam mcp --http PORT`: Streamable HTTP at /mcp for clients on MCP
 * 2026-07-28, stateless: each request is served by a fresh server instance,
 * and a tool call's rounds may land on any instance sharing the store (and
 * the secret). The per-request SDK handler serves no 2025-era client here:
 * those need a session to answer a server-sent elicitation/create, which a
 * stateless fleet cannot route; they connect over stdio.
 */

/** Options of {@link startMcpHttpServer}. */
export interface McpHttpOptions extends RoundTripServingOptions {
  /** @default 0 (any free port) */
  port?: number
  /** The address to listen on (`0.0.0.0` for every interface, behind a load balancer). @default '127.0.0.1' */
  host?: string
  /**
   * Host names served besides the loopback names: the load balancer's or the
   * host's own name, as clients reach it. A request with any other Host
   * header is refused (403): a name a DNS answer could point elsewhere must
   * be named to be served.
   */
  allowedHosts?: readonly string[]
  onerror?: (error: Error) => void
}

/** A running `askseam mcp --http`. */
export interface McpHttpServer {
  /** The endpoint, `http://HOST:PORT/mcp`. */
  url: string
  port: number
  close(): Promise<void>
}

function toRequest(request: IncomingMessage, url: URL): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else if (value !== undefined) headers.set(name, value)
  }
  const controller = new AbortController()
  request.once('close', () => {
    if (!request.complete) controller.abort()
  })
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD'
  return new Request(url, {
    method: request.method ?? 'GET',
    headers,
    signal: controller.signal,
    ...(hasBody
      ? { body: Readable.toWeb(request) as unknown as ReadableStream, duplex: 'half' }
      : {}),
  } as RequestInit)
}

async function writeResponse(response: ServerResponse, answer: Response): Promise<void> {
  const headers: Record<string, string> = {}
  answer.headers.forEach((value, name) => {
    headers[name] = value
  })
  response.writeHead(answer.status, headers)
  if (answer.body === null) {
    response.end()
    return
  }
  const reader = answer.body.getReader()
  response.once('close', () => void reader.cancel().catch(() => undefined))
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    response.write(value)
  }
  response.end()
}

/** Starts `askseam mcp --http`: resolves once it listens. */
export async function startMcpHttpServer(options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const sdk = await loadServerSdk()
  const serving = await openRoundTripServing(options)
  const handler = sdk.createMcpHandler(() => serving.createServer(), {
    legacy: 'reject',
    ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
  })
  const host = options.host ?? '127.0.0.1'
  const named = (options.allowedHosts ?? []).map((name) => name.toLowerCase())
  const allowedHostnames = [...sdk.localhostAllowedHostnames(), ...named]
  const allowedOrigins = [...sdk.localhostAllowedOrigins(), ...named]
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://${host.includes(':') ? `[${host}]` : host}`)
    if (url.pathname !== '/mcp') {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
      response.end('The MCP endpoint is /mcp.\n')
      return
    }
    const asked = toRequest(request, url)
    // DNS rebinding and cross-site requests: loopback and named Host names only, and no page from another origin.
    const refused =
      sdk.hostHeaderValidationResponse(asked, allowedHostnames) ??
      sdk.originValidationResponse(asked, allowedOrigins)
    ;(refused === undefined ? handler.fetch(asked) : Promise.resolve(refused))
      .then((answer) => writeResponse(response, answer))
      .catch((error: unknown) => {
        options.onerror?.(error instanceof Error ? error : new Error(String(error)))
        if (!response.headersSent) {
          response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
          response.end('Internal error.\n')
        } else response.destroy()
      })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  let closing: Promise<void> | undefined
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    port,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
        await handler.close()
        await serving.close()
      })()
      return closing
    },
  }
}

/** Options of {@link runMcpHttp}. */
export interface RunMcpHttpOptions extends McpHttpOptions {
  /** Where logs go. @default a line on process.stderr */
  log?: (line: string) => void
}

/** Runs `askseam mcp --http PORT` until SIGINT or SIGTERM. */
export async function runMcpHttp(options: RunMcpHttpOptions = {}): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`askseam mcp: ${line}\n`))
  const server = await startMcpHttpServer({
    ...options,
    onerror: options.onerror ?? ((error) => log(`protocol error: ${error.message}`)),
  })
  if (options.secret === undefined) {
    log('no --secret: a random one, so every round of a call must reach this instance')
  }
  const stopped = untilStopped()
  log(`ready on ${server.url} (protocol 2026-07-28, stateless); tool plan_deployment`)
  await stopped
  const undo = exitOnSecondSignal()
  await server.close()
  log('stopped')
  undo()
}
