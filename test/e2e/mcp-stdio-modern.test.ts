import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterEach, describe, expect, it } from 'vitest'

/*
 * The real `askseam mcp` child process and the official TypeScript SDK v2
 * client on MCP 2026-07-28 over stdio: the client's multi-round-trip driver
 * fulfils each InputRequiredResult through its elicitation handler and
 * retries by itself. (Clients on 2025-11-25 and 2025-06-18 are the business
 * of mcp-stdio.test.ts, unchanged.)
 */

const root = fileURLToPath(new URL('../..', import.meta.url))

interface ElicitParams {
  message: string
  requestedSchema: { properties: Record<string, { oneOf?: Array<{ const: string }> }> }
}

const clients: Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

async function connect(
  mode: 'auto' | 'legacy' | { pin: string },
  capabilities: Record<string, unknown>,
  asked: ElicitParams[],
): Promise<Client> {
  const client = new Client(
    { name: 'askseam-e2e-modern', version: '0.0.0' },
    { capabilities, versionNegotiation: { mode } },
  )
  // Without the capability the SDK refuses the handler: such a client has no way to answer.
  if (capabilities.elicitation !== undefined)
    client.setRequestHandler('elicitation/create', (request) => {
      const params = request.params as unknown as ElicitParams
      asked.push(params)
      const content: Record<string, string> = {}
      for (const [name, property] of Object.entries(params.requestedSchema.properties)) {
        const first = property.oneOf?.[0]?.const
        if (first !== undefined) content[name] = first
      }
      return Promise.resolve({ action: 'accept' as const, content })
    })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp'],
      cwd: root,
      stderr: 'ignore',
    }),
  )
  clients.push(client)
  return client
}

function textOf(result: unknown): string {
  const { content } = result as { content: Array<{ text?: string }> }
  return content.map((block) => block.text ?? '').join('')
}

describe('askseam mcp over stdio, MCP 2026-07-28', { timeout: 120_000 }, () => {
  it.each([
    ['pinned to 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'] as const,
    ['negotiating', 'auto', '2026-07-28'] as const,
    ['on the 2025 handshake', 'legacy', '2025-11-25'] as const,
  ])('runs the demo agent for a client %s', async (_, mode, version) => {
    const asked: ElicitParams[] = []
    const client = await connect(mode, { elicitation: { form: {} } }, asked)
    expect(client.getNegotiatedProtocolVersion()).toBe(version)
    const result = await client.callTool({ name: 'plan_deployment', arguments: {} })
    expect(textOf(result)).toMatch(/^Approved\. The agent runs this plan:/)
    expect(asked.map((params) => Object.keys(params.requestedSchema.properties))).toEqual([
      ['region', 'region_other', 'checks', 'checks_other', 'announce'],
      ['plan', 'plan_other'],
    ])
  })

  it('gives a client without elicitation a coded error and no form', async () => {
    const asked: ElicitParams[] = []
    const client = await connect({ pin: '2026-07-28' }, {}, asked)
    const result = await client.callTool({ name: 'plan_deployment', arguments: {} })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^PROVIDER_FAILED: .*elicitation/)
    expect(asked).toEqual([])
  })
})
