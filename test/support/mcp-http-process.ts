import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createServer, request as httpRequest } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { freePort } from './console-process.js'

/*
 * `askseam mcp --http` as a fleet runs it: child processes on loopback ports,
 * killed with SIGKILL by the test's cleanup, and a round-robin proxy in front
 * that a load balancer would be.
 */

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))

/** One running `askseam mcp --http`. */
export interface McpHttpProcess {
  child: ChildProcess
  /** Its endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string
  /** Everything it wrote to stderr. */
  log(): string
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>
}

/** Starts `askseam mcp --http PORT ...args` and resolves once it says it is ready. */
export async function startMcpHttp(
  args: string[],
  cleanup: (stop: () => Promise<void>) => void,
): Promise<McpHttpProcess> {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, 'mcp', '--http', String(port), ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await stopped
  }
  cleanup(kill)
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /ready on (http:\/\/\S+)/.exec(output)
      if (match?.[1] !== undefined) resolve(match[1])
    })
    child.once('exit', () => reject(new Error(`askseam mcp --http exited: ${output}`)))
  })
  return { child, url, log: () => output, kill }
}

/** A request the proxy forwarded. */
export interface Forwarded {
  backend: number
  /** The JSON-RPC method of the body, when it has one. */
  method?: string
}

/** A loopback proxy that sends each request to the next backend in turn. */
export interface RoundRobinProxy {
  url: string
  forwarded: Forwarded[]
  close(): Promise<void>
}

/** Starts a proxy at `/mcp` over `backends` (their `/mcp` URLs), alternating per request. */
export async function startRoundRobinProxy(backends: readonly string[]): Promise<RoundRobinProxy> {
  const forwarded: Forwarded[] = []
  let next = 0
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      const body = Buffer.concat(chunks)
      const backend = next % backends.length
      next += 1
      let method: string | undefined
      try {
        method = (JSON.parse(body.toString()) as { method?: string }).method
      } catch {
        method = undefined
      }
      forwarded.push(method === undefined ? { backend } : { backend, method })
      const target = new URL(backends[backend] as string)
      const upstream = httpRequest(
        target,
        { method: incoming.method, headers: { ...incoming.headers, host: target.host } },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(outgoing)
        },
      )
      upstream.on('error', () => {
        if (!outgoing.headersSent) outgoing.writeHead(502)
        outgoing.end()
      })
      upstream.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
