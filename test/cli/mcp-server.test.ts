import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createDeploymentServer } from '../../src/cli/mcp-server.js'
import type { DeploymentServerOptions } from '../../src/cli/mcp-server.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
})

/** Connects a client that answers the agent's forms in turn with `results`; none: it never answers. */
async function callPlanDeployment(
  results: ElicitResult[] | undefined,
  options: DeploymentServerOptions = {},
): Promise<{ isError: boolean; text: string; messages: string[] }> {
  const { server, seam } = createDeploymentServer(options)
  const client = new Client(
    { name: 'test', version: '0' },
    { capabilities: results === undefined ? {} : { elicitation: {} } },
  )
  const messages: string[] = []
  if (results !== undefined) {
    const queue = [...results]
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      messages.push(request.params.message)
      const next = queue.shift()
      if (next !== undefined) return next
      return new Promise<ElicitResult>((resolve) =>
        extra.signal.addEventListener('abort', () => resolve({ action: 'cancel' })),
      )
    })
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  await client.connect(clientSide)
  cleanups.push(async () => {
    await seam.close()
    await client.close()
  })
  const result = (await client.callTool({ name: 'plan_deployment' })) as CallToolResult
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
  return { isError: result.isError === true, text, messages }
}

describe('the plan_deployment tool', () => {
  it('builds the plan from typed answers: a typed region, a typed gate beside the chosen ones', async () => {
    const { text, messages } = await callPlanDeployment([
      {
        action: 'accept',
        content: {
          region: 'us-east-1',
          region_other: 'eu-central-1',
          checks: ['Load test'],
          checks_other: 'Canary',
        },
      },
      { action: 'accept', content: { plan: 'Approve' } },
    ])
    expect(messages[1]).toContain('# Deploy checkout-service v2.4.0 to eu-central-1')
    expect(messages[1]).toContain('2. Run the gates: Load test, Canary')
    expect(text).toMatch(/^Approved\./)
    expect(text).toContain('No release note.')
  })

  it('names the region a chosen label stands for, without its "(Recommended)"', async () => {
    const { messages } = await callPlanDeployment([
      { action: 'accept', content: { region: 'eu-west-1 (Recommended)' } },
      { action: 'accept', content: { plan: 'Approve' } },
    ])
    expect(messages[1]).toContain('# Deploy checkout-service v2.4.0 to eu-west-1\n')
    expect(messages[1]).not.toContain('Recommended')
  })

  it('falls back to the recommended region when skipped, and does not deploy an unreviewed plan', async () => {
    const { text, messages } = await callPlanDeployment([
      { action: 'accept', content: {} },
      { action: 'accept', content: {} },
    ])
    expect(messages[1]).toContain('# Deploy checkout-service v2.4.0 to eu-west-1\n')
    expect(messages[1]).toContain('(no gates chosen)')
    expect(text).toMatch(/^The plan was neither approved nor refused/)
  })

  it("reports the reviewer's typed feedback as a refusal", async () => {
    const { text } = await callPlanDeployment([
      { action: 'accept', content: {} },
      { action: 'accept', content: { plan_other: 'Deploy on Monday instead' } },
    ])
    expect(text).toMatch(/^Not approved\. The reviewer wrote: "Deploy on Monday instead"/)
  })

  it('fails the tool call with the code when the client cannot elicit', async () => {
    const { isError, text } = await callPlanDeployment(undefined)
    expect(isError).toBe(true)
    expect(text).toMatch(
      /^PROVIDER_FAILED: The connected MCP client does not support form elicitation/,
    )
  })

  it('fails the tool call with ASK_TIMEOUT when the user does not answer in time', async () => {
    const { isError, text } = await callPlanDeployment([], { timeoutMs: 20 })
    expect(isError).toBe(true)
    expect(text).toMatch(/^ASK_TIMEOUT: /)
  })
})
