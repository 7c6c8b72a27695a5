import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, expect, it } from 'vitest'
import { startMcpHttpServer } from '../../src/cli/mcp-http.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import type { McpHttpServer } from '../../src/cli/mcp-http.js'

// Found by a fault hunt: two `askseam mcp --http` instances on one SQLite
// file and one secret, the SDK v2 client's rounds alternating between them.
// The user answered the first ask on instance A; the next round landed on
// instance B, which had not yet heard (its change feed polls) that A had
// committed it. B attached the handler to its own stale pending copy of the
// ask, answered input_required for it again, and dropped the plan-review
// answer the round carried: the user was asked both questions twice and
// their first "Revise" was lost (DESIGN §14, §10 "Nothing the human said is
// lost").
//
// Instance B's feed polls once an hour here, so it hears nothing from A
// during the test: the round on B sees the store only by asking it.

const SECRET = 'the fleet secret both instances are started with'
const NEVER_POLL_MS = 3_600_000

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface ElicitParams {
  message: string
  requestedSchema: { properties: Record<string, unknown> }
}

async function instance(path: string, pollIntervalMs?: number): Promise<McpHttpServer> {
  const store: AskStore = createSqliteStore({
    path,
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
  })
  const server = await startMcpHttpServer({ store, secret: SECRET })
  cleanups.push(async () => {
    await server.close()
    await store.close()
  })
  return server
}

it(
  'commits the answer a round carries when it lands on an instance that has not heard of the last commit',
  { timeout: 60_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'askseam-mcp-lag-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const path = join(dir, 'asks.sqlite')
    const a = await instance(path)
    const b = await instance(path, NEVER_POLL_MS)
    // The rounds of the call: the first on B, the answer to it on A, the plan review's answer on B.
    const route = [b, a, b]
    const landed: string[] = []
    const client = new Client(
      { name: 'fleet-client', version: '0.0.0' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    )
    const asked: string[] = []
    client.setRequestHandler('elicitation/create', (request) => {
      const params = request.params as unknown as ElicitParams
      const [first] = Object.keys(params.requestedSchema.properties)
      asked.push(first ?? '')
      const content: Record<string, string | string[]> =
        first === 'region'
          ? { region: 'us-east-1', checks: ['Smoke tests'] }
          : { [first as string]: 'Revise' }
      return Promise.resolve({ action: 'accept' as const, content })
    })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(a.url), {
        fetch: (url, init) => {
          const { method } = JSON.parse(String(init?.body ?? '{}')) as { method?: string }
          const target = method === 'tools/call' ? (route.shift() ?? a) : a
          landed.push(`${method ?? '?'} on ${target === a ? 'A' : 'B'}`)
          return fetch(target.url, init)
        },
      }),
    )
    cleanups.push(() => client.close())

    const result = (await client.callTool({ name: 'plan_deployment', arguments: {} })) as {
      content: Array<{ text?: string }>
    }

    // Each question once, and the round on B went on from the answer A committed.
    expect(asked).toEqual(['region', 'plan'])
    expect(landed.filter((line) => line.startsWith('tools/call'))).toEqual([
      'tools/call on B',
      'tools/call on A',
      'tools/call on B',
    ])
    expect(result.content[0]?.text).toMatch(/^Sent back for revision \("Revise"\)/)
    const reader = createSqliteStore({ path })
    cleanups.push(() => reader.close())
    expect(await reader.pending()).toEqual([])
  },
)
