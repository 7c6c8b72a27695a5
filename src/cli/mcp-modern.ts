import { PassThrough } from 'node:stream'
import type { Readable, Writable } from 'node:stream'
import type { Server } from '@modelcontextprotocol/server'
import { createMemoryStore, createUserQuestions } from '../protocol/index.js'
import { importPeer, newSecret } from '../protocol/internal.js'
import type { AskStore, UserQuestions } from '../protocol/index.js'
import { createRoundTrips, serveTools } from '../providers/mcp/index.js'
import type { RoundTrips } from '../providers/mcp/index.js'
import { packageVersion } from './version.js'

/*
 * `askseam mcp` for clients on MCP 2026-07-28 (DESIGN §14): the demo agent's
 * tool served through the TypeScript SDK v2 by Multi Round-Trip Requests.
 * Clients on 2025-11-25 and 2025-06-18 keep today's server (mcp-server.ts, on
 * SDK 1.x, asking with server-sent elicitation/create): on stdio the first
 * message decides which of the two serves the connection.
 */

/** The modern SDK's server package, loaded only when a modern client is served. */
export async function loadServerSdk() {
  return importPeer(
    'askseam mcp',
    '@modelcontextprotocol/server',
    () => import('@modelcontextprotocol/server'),
  )
}

/** Options of {@link openRoundTripServing}. */
export interface RoundTripServingOptions {
  /** Each ask's deadline in milliseconds. @default undefined (wait for the human indefinitely) */
  timeoutMs?: number
  /** Where the asks are kept. @default the memory store */
  store?: AskStore
  /** The requestState secret shared by every instance. @default a random one (one instance serves every round) */
  secret?: string
}

/** A seam and its round trips, ready to back per-request servers. */
export interface RoundTripServing {
  seam: UserQuestions
  rounds: RoundTrips
  /** Builds one v2 server with the demo tool (one per HTTP request or stdio connection). */
  createServer(): Promise<Server>
  close(): Promise<void>
}

/** The seam, its round trips and a server factory for the demo tool. */
export async function openRoundTripServing(
  options: RoundTripServingOptions = {},
): Promise<RoundTripServing> {
  const [sdk, { PLAN_DEPLOYMENT_TOOL, planDeployment }] = await Promise.all([
    loadServerSdk(),
    import('./mcp-server.js'),
  ])
  const store = options.store ?? createMemoryStore()
  const seam = createUserQuestions({
    store,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  })
  const rounds = createRoundTrips({
    seam,
    store,
    secret: options.secret ?? newSecret(),
  })
  return {
    seam,
    rounds,
    createServer() {
      const server = new sdk.Server(
        { name: 'askseam', version: packageVersion() },
        {
          capabilities: { tools: {} },
          instructions: `Call ${PLAN_DEPLOYMENT_TOOL} to run a demo agent that stops to ask the user about a deployment.`,
        },
      )
      serveTools(server, rounds, [
        {
          name: PLAN_DEPLOYMENT_TOOL,
          title: 'Plan a deployment',
          description:
            'Runs the askseam demo agent: it asks the user where to deploy checkout-service, which checks gate the traffic switch and what to announce, then submits its plan for review and returns what it decided. Needs a client that supports elicitation.',
          annotations: { readOnlyHint: true, openWorldHint: false },
          handler: async (asking) => ({
            content: [{ type: 'text', text: await planDeployment(asking) }],
          }),
        },
      ])
      return Promise.resolve(server)
    },
    async close() {
      rounds.close()
      await seam.close()
      if (options.store === undefined) await store.close()
    },
  }
}

/** Reads until the first newline: the opening message of a stdio connection. */
function firstLine(input: Readable): Promise<{ line: string; chunks: Buffer[] }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const done = () => {
      input.off('data', onData)
      input.off('end', done)
      input.off('close', done)
      input.pause()
      const text = Buffer.concat(chunks).toString('utf8')
      const end = text.indexOf('\n')
      resolve({ line: end === -1 ? text : text.slice(0, end), chunks })
    }
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      chunks.push(buffer)
      if (buffer.includes(10)) done()
    }
    input.on('data', onData)
    input.once('end', done)
    input.once('close', done)
  })
}

/** Whether the opening message claims protocol 2026-07-28 or later (the per-request envelope's version key). */
function claimsModernEra(line: string, versionKey: string): boolean {
  try {
    const message = JSON.parse(line) as { method?: unknown; params?: { _meta?: unknown } }
    const meta = message.params?._meta
    return (
      message.method !== 'initialize' &&
      typeof meta === 'object' &&
      meta !== null &&
      typeof (meta as Record<string, unknown>)[versionKey] === 'string'
    )
  } catch {
    return false
  }
}

/** Options of {@link runMcpStdio}. */
export interface McpStdioOptions extends RoundTripServingOptions {
  /** Progress for a 2025 client's call while it waits on a human (see `keepAlive`); a 2026 client does not wait on the wire. */
  keepAliveMs?: number
  input?: Readable
  output?: Writable
  log?: (line: string) => void
}

/**
 * `askseam mcp` on stdio, for a client of either era: an opening `initialize`
 * (or any message without the 2026-07-28 envelope) goes to today's server,
 * unchanged; an opening that claims 2026-07-28 is served by round trips.
 */
export async function runMcpStdio(options: McpStdioOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const log = options.log ?? ((line: string) => process.stderr.write(`askseam mcp: ${line}\n`))
  const { line, chunks } = await firstLine(input)
  // Everything read so far, then the rest of the input, for whichever server takes the connection.
  const replay = new PassThrough()
  for (const chunk of chunks) replay.write(chunk)
  input.pipe(replay)
  input.resume()
  let modern: Awaited<ReturnType<typeof loadServerSdk>> | undefined
  try {
    const sdk = await loadServerSdk()
    if (claimsModernEra(line, sdk.PROTOCOL_VERSION_META_KEY)) modern = sdk
  } catch {
    // Without the v2 SDK only today's clients are served.
  }
  if (modern === undefined) {
    const { runMcpServer } = await import('./mcp-server.js')
    await runMcpServer({
      input: replay,
      output,
      log,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
      ...(options.store === undefined ? {} : { store: options.store }),
    })
    return
  }
  const serving = await openRoundTripServing(options)
  const { serveStdio, StdioServerTransport } = await importPeer(
    'askseam mcp',
    '@modelcontextprotocol/server',
    () => import('@modelcontextprotocol/server/stdio'),
  )
  const transport = new StdioServerTransport(replay, output)
  const closed = new Promise<void>((resolve) => {
    replay.once('end', resolve)
    replay.once('close', resolve)
  })
  const handle = serveStdio(() => serving.createServer(), {
    legacy: 'reject',
    transport,
    onerror: (error) => log(`protocol error: ${error.message}`),
  })
  log('ready on stdio (protocol 2026-07-28, multi round-trip); tool plan_deployment')
  await closed
  await handle.close()
  await serving.close()
  log('client disconnected; stopped')
}
