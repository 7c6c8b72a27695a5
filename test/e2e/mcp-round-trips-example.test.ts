import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, describe, expect, it } from 'vitest'

/*
 * examples/mcp-round-trips.ts as the server (`askseam` mapped onto src/), the
 * TypeScript SDK v2 client on MCP 2026-07-28 as the host: the client's
 * multi-round-trip driver answers the form and retries on its own.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const TSX = path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')
const dir = mkdtempSync(path.join(tmpdir(), 'askseam-mcp-example-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const tsconfig = path.join(dir, 'tsconfig.json')
writeFileSync(
  tsconfig,
  JSON.stringify({
    compilerOptions: {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      strict: true,
      paths: {
        askseam: [path.join(ROOT, 'src/protocol/index.ts')],
        'askseam/mcp': [path.join(ROOT, 'src/providers/mcp/index.ts')],
      },
    },
  }),
)

describe('examples/mcp-round-trips.ts', () => {
  it(
    'asks through an InputRequiredResult and deploys where the user said',
    { timeout: 60_000 },
    async () => {
      const client = new Client(
        { name: 'example-host', version: '0.0.0' },
        {
          capabilities: { elicitation: { form: {} } },
          versionNegotiation: { mode: { pin: '2026-07-28' } },
        },
      )
      const messages: string[] = []
      client.setRequestHandler('elicitation/create', (request) => {
        messages.push((request.params as { message: string }).message)
        return Promise.resolve({ action: 'accept' as const, content: { region: 'us-east-1' } })
      })
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ['--import', TSX, path.join(ROOT, 'examples/mcp-round-trips.ts')],
          cwd: dir,
          env: { ...(process.env as Record<string, string>), TSX_TSCONFIG_PATH: tsconfig },
          stderr: 'ignore',
        }),
      )
      try {
        const result = await client.callTool({ name: 'deploy', arguments: {} })
        expect(result.content).toEqual([{ type: 'text', text: 'Deploying to us-east-1' }])
        expect(messages).toHaveLength(1)
        expect(messages[0]).toContain('Where to?')
      } finally {
        await client.close()
      }
    },
  )
})
