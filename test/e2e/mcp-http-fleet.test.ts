import { request as httpRequest } from 'node:http'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { describePostgres, freshSchema } from '../support/postgres.js'
import { startMcpHttp, startRoundRobinProxy } from '../support/mcp-http-process.js'
import type { McpHttpProcess, RoundRobinProxy } from '../support/mcp-http-process.js'

/*
 * `askseam mcp --http` as a fleet: two real processes on one Postgres with
 * one secret, a round-robin proxy in front, and the official TypeScript SDK
 * v2 client on MCP 2026-07-28, whose multi-round-trip driver fulfils each
 * InputRequiredResult and retries on its own.
 */

const SECRET = 'the fleet secret both instances are started with'

interface ElicitParams {
  message: string
  requestedSchema: {
    properties: Record<string, { oneOf?: Array<{ const: string }>; type?: string }>
  }
}

/** Answers a form as a user who takes the first option of every choice would. */
function firstChoices(params: ElicitParams): Record<string, unknown> {
  const content: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(params.requestedSchema.properties)) {
    const first = property.oneOf?.[0]?.const
    if (first !== undefined) content[name] = first
  }
  return content
}

interface InputRequiredShape {
  resultType: 'input_required'
  inputRequests: Record<string, { params: ElicitParams }>
  requestState: string
}

function textOf(result: unknown): string {
  const { content } = result as { content: Array<{ text?: string }> }
  return content.map((block) => block.text ?? '').join('')
}

describePostgres('askseam mcp --http: two instances on one Postgres', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>
  let store: AskStore
  const stops: Array<() => Promise<void>> = []
  const clients: Client[] = []

  beforeAll(async () => {
    schema = await freshSchema()
    store = createPostgresStore({ connectionString: schema.url })
  })
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()))
    await Promise.all(stops.splice(0).map((stop) => stop()))
  })
  afterAll(async () => {
    await store.close()
    await schema.drop()
  })

  async function fleet(): Promise<[McpHttpProcess, McpHttpProcess]> {
    const args = ['--postgres', schema.url, '--secret', SECRET]
    return Promise.all([
      startMcpHttp(args, (stop) => stops.push(stop)),
      startMcpHttp(args, (stop) => stops.push(stop)),
    ])
  }

  async function connect(
    url: string,
    options: {
      autoFulfill?: boolean
      answer?: (params: ElicitParams) => Record<string, unknown>
    } = {},
  ): Promise<Client> {
    const client = new Client(
      { name: 'fleet-client', version: '0.0.0' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: options.autoFulfill ?? true },
      },
    )
    const answer = options.answer ?? firstChoices
    client.setRequestHandler('elicitation/create', (request) =>
      Promise.resolve({
        action: 'accept' as const,
        content: answer(request.params as unknown as ElicitParams) as Record<string, string>,
      }),
    )
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    clients.push(client)
    return client
  }

  function manualCall(
    client: Client,
    params: { inputResponses?: Record<string, unknown>; requestState?: string } = {},
  ): Promise<InputRequiredShape> {
    return client.callTool(
      { name: 'plan_deployment', arguments: {}, ...params } as never,
      {
        allowInputRequired: true,
      } as never,
    ) as unknown as Promise<InputRequiredShape>
  }

  it('serves one client whose rounds land on either instance', { timeout: 120_000 }, async () => {
    const [first, second] = await fleet()
    const proxy: RoundRobinProxy = await startRoundRobinProxy([first.url, second.url])
    stops.push(() => proxy.close())
    const asked: string[] = []
    const client = await connect(proxy.url, {
      answer: (params) => {
        asked.push(params.message.split('\n')[0] ?? '')
        return firstChoices(params)
      },
    })
    const result = await client.callTool({ name: 'plan_deployment', arguments: {} })
    expect(textOf(result)).toMatch(/^Approved\. The agent runs this plan:/)
    expect(textOf(result)).toContain('eu-west-1')
    expect(asked).toHaveLength(2)
    const calls = proxy.forwarded.filter((request) => request.method === 'tools/call')
    expect(calls).toHaveLength(3)
    expect(new Set(calls.map((request) => request.backend))).toEqual(new Set([0, 1]))
    expect(await store.pending()).toEqual([])
  })

  it(
    'commits exactly one answer when the same retry reaches both instances at once',
    { timeout: 120_000 },
    async () => {
      const [first, second] = await fleet()
      const onFirst = await connect(first.url, { autoFulfill: false })
      const onSecond = await connect(second.url, { autoFulfill: false })
      const round = await manualCall(onFirst)
      const [askId] = Object.keys(round.inputRequests) as [string]
      const retry = (client: Client, region: string) =>
        manualCall(client, {
          inputResponses: { [askId]: { action: 'accept', content: { region } } },
          requestState: round.requestState,
        })
      const [a, b] = await Promise.all([
        retry(onFirst, 'us-east-1'),
        retry(onSecond, 'ap-southeast-2'),
      ])
      const record = await store.get(askId)
      expect(record?.state).toBe('settled')
      const committed = (
        record?.outcome as { answer: { answers: Array<{ id: string; selected: string[] }> } }
      ).answer.answers.find((answer) => answer.id === 'region')?.selected[0] as string
      expect(['us-east-1', 'ap-southeast-2']).toContain(committed)
      // Both instances went on from the one committed answer to the same next ask.
      expect(Object.keys(a.inputRequests)).toEqual(Object.keys(b.inputRequests))
      const [review] = Object.keys(a.inputRequests) as [string]
      expect(a.inputRequests[review]?.params.message).toContain(committed)
      expect(b.inputRequests[review]?.params.message).toContain(committed)
    },
  )

  it(
    'completes the retry on the other instance when the first is killed after asking',
    { timeout: 120_000 },
    async () => {
      const [first, second] = await fleet()
      const onFirst = await connect(first.url, { autoFulfill: false })
      const round = await manualCall(onFirst)
      const [askId] = Object.keys(round.inputRequests) as [string]
      await first.kill()
      const onSecond = await connect(second.url, { autoFulfill: false })
      const next = await manualCall(onSecond, {
        inputResponses: { [askId]: { action: 'accept', content: { region: 'us-east-1' } } },
        requestState: round.requestState,
      })
      const [review] = Object.keys(next.inputRequests) as [string]
      expect(next.inputRequests[review]?.params.message).toContain('us-east-1')
      const done = await manualCall(onSecond, {
        inputResponses: { [review]: { action: 'accept', content: { plan: 'Approve' } } },
        requestState: next.requestState,
      })
      expect(textOf(done)).toMatch(/^Approved\./)
    },
  )

  it(
    'refuses a tampered or foreign requestState with a JSON-RPC error, and the store keeps the ask pending',
    { timeout: 120_000 },
    async () => {
      const [first, second] = await fleet()
      const client = await connect(first.url, { autoFulfill: false })
      const round = await manualCall(client)
      const [askId] = Object.keys(round.inputRequests) as [string]
      const answer = { [askId]: { action: 'accept', content: { region: 'us-east-1' } } }
      const last = round.requestState.at(-1) === 'A' ? 'B' : 'A'
      const tampered = `${round.requestState.slice(0, -1)}${last}`
      const stranger = new Client(
        { name: 'another-client', version: '0.0.0' },
        {
          capabilities: { elicitation: { form: {} } },
          versionNegotiation: { mode: { pin: '2026-07-28' } },
          inputRequired: { autoFulfill: false },
        },
      )
      await stranger.connect(new StreamableHTTPClientTransport(new URL(second.url)))
      clients.push(stranger)
      const refusal = {
        code: -32602,
        data: { code: 'INVALID_REQUEST', details: { field: 'requestState' } },
      }
      await expect(
        manualCall(client, { inputResponses: answer, requestState: tampered }),
      ).rejects.toMatchObject(refusal)
      await expect(
        manualCall(stranger, { inputResponses: answer, requestState: round.requestState }),
      ).rejects.toMatchObject(refusal)
      expect((await store.get(askId))?.state).toBe('pending')
    },
  )

  it(
    'answers a 2025-era client over HTTP with the unsupported-version error: it connects over stdio',
    { timeout: 60_000 },
    async () => {
      const [instance] = await fleet()
      const client = new Client(
        { name: 'old-client', version: '0.0.0' },
        { capabilities: { elicitation: { form: {} } } },
      )
      await expect(
        client.connect(new StreamableHTTPClientTransport(new URL(instance.url))),
      ).rejects.toThrow(/2026-07-28/)
    },
  )

  it(
    'refuses a Host name a DNS answer could rebind, and a page from another origin',
    { timeout: 60_000 },
    async () => {
      const [instance] = await fleet()
      const status = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const sent = httpRequest(
            instance.url,
            { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
            (answer) => {
              answer.resume()
              resolve(answer.statusCode ?? 0)
            },
          )
          sent.on('error', reject)
          sent.end('{}')
        })
      expect(await status({ host: 'attacker.example' })).toBe(403)
      expect(await status({ origin: 'https://attacker.example' })).toBe(403)
    },
  )

  it(
    'behind a load balancer: listens on every interface and serves the Host names it is told, only those',
    { timeout: 60_000 },
    async () => {
      const instance = await startMcpHttp(
        ['--secret', SECRET, '--host', '0.0.0.0', '--allow-host', 'lb.internal'],
        (stop) => stops.push(stop),
      )
      const { port } = new URL(instance.url)
      expect(instance.url).toBe(`http://0.0.0.0:${port}/mcp`)
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const sent = httpRequest(
            `http://127.0.0.1:${port}/mcp`,
            { method: 'POST', headers: { 'content-type': 'application/json', host } },
            (answer) => {
              answer.resume()
              resolve(answer.statusCode ?? 0)
            },
          )
          sent.on('error', reject)
          sent.end('{}')
        })
      expect(await status(`lb.internal:${port}`)).not.toBe(403)
      expect(await status(`LB.Internal`)).not.toBe(403)
      expect(await status(`attacker.example:${port}`)).toBe(403)
    },
  )
})
