import { setTimeout as humanTakes } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import type {
  CallToolResult,
  ElicitRequestFormParams,
  ElicitResult,
  JSONRPCMessage,
  Progress,
} from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { ElicitationInbox } from '../support/mcp-pair.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

interface Session {
  client: Client
  transport: StdioClientTransport
  inbox: ElicitationInbox
  /** Everything the server wrote to stderr so far. */
  stderr(): string
  /** Resolves once the server's stderr has ended (the process is gone). */
  stderrEnded: Promise<void>
  /** Errors the client transport reported, e.g. a line on stdout that is not JSON-RPC. */
  errors: Error[]
  /** Every message the client received from the server after connecting, in order. */
  received: JSONRPCMessage[]
}

const sessions: Session[] = []
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.client.close()))
})

/** Spawns the real `askseam mcp` command and connects the official SDK client to it over stdio. */
async function spawnServer(flags: string[] = []): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', ...flags],
    cwd: root,
    stderr: 'pipe',
  })
  let stderr = ''
  const stream = transport.stderr
  const stderrEnded = new Promise<void>((resolve) => stream?.once('end', () => resolve()))
  stream?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const client = new Client(
    { name: 'askseam-e2e', version: '0.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  )
  const inbox = new ElicitationInbox()
  client.setRequestHandler(
    ElicitRequestSchema,
    (request, extra) =>
      new Promise<ElicitResult>((resolve) => {
        const cancelled = new Promise<unknown>((done) =>
          extra.signal.addEventListener('abort', () => done(extra.signal.reason), { once: true }),
        )
        inbox.push({
          params: request.params as ElicitRequestFormParams,
          requestId: extra.requestId,
          signal: extra.signal,
          cancelled,
          respond: resolve,
        })
      }),
  )
  const errors: Error[] = []
  client.onerror = (error) => errors.push(error)
  await client.connect(transport)
  const received: JSONRPCMessage[] = []
  const deliver = transport.onmessage
  transport.onmessage = (message: JSONRPCMessage) => {
    received.push(message)
    deliver?.(message)
  }
  const session = { client, transport, inbox, stderr: () => stderr, stderrEnded, errors, received }
  sessions.push(session)
  return session
}

function textOf(result: unknown): string {
  const { content } = result as CallToolResult
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('')
}

describe('askseam mcp over stdio', () => {
  it('lists the plan_deployment tool and writes nothing but protocol to stdout', async () => {
    const { client, stderr, errors } = await spawnServer()
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['plan_deployment'])
    await client.ping()
    expect(stderr()).toContain('ready on stdio')
    expect(errors).toEqual([])
  })

  it('asks the deployment questions, then the plan review, and reports an approved plan', async () => {
    const { client, inbox } = await spawnServer()
    const called = client.callTool({ name: 'plan_deployment' })
    const questions = await inbox.next()
    expect(questions.requestId).not.toBe(0)
    expect(Object.keys(questions.params.requestedSchema.properties)).toContain('checks')
    questions.respond({
      action: 'accept',
      content: {
        region: 'us-east-1',
        checks: ['Smoke tests', 'Load test'],
        announce: 'Checkout is faster',
      },
    })
    const review = await inbox.next()
    expect(review.params.message).toContain('# Deploy checkout-service v2.4.0 to us-east-1')
    expect(review.params.message).toContain('2. Run the gates: Smoke tests, Load test')
    review.respond({ action: 'accept', content: { plan: 'Approve' } })
    const result = await called
    expect(result.isError).toBeFalsy()
    expect(textOf(result)).toMatch(/^Approved\. The agent runs this plan:/)
    expect(textOf(result)).toContain('Release note: Checkout is faster')
  })

  it('reports a refused plan, and a declined form as a cancelled run', async () => {
    const { client, inbox } = await spawnServer()
    const refused = client.callTool({ name: 'plan_deployment' })
    ;(await inbox.next()).respond({ action: 'accept', content: {} })
    const review = await inbox.next()
    expect(review.params.message).toContain('# Deploy checkout-service v2.4.0 to eu-west-1\n')
    review.respond({ action: 'accept', content: { plan: 'Revise' } })
    expect(textOf(await refused)).toMatch(/^Sent back for revision \("Revise"\)/)

    const declined = client.callTool({ name: 'plan_deployment' })
    ;(await inbox.next()).respond({ action: 'decline' })
    const result = await declined
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^ASK_CANCELLED: /)
  })

  it('takes the form down in the client when the client cancels the tool call', async () => {
    const { client, inbox } = await spawnServer()
    const controller = new AbortController()
    const called = client.callTool({ name: 'plan_deployment' }, undefined, {
      signal: controller.signal,
    })
    const questions = await inbox.next()
    controller.abort('the user stopped the agent')
    await expect(called).rejects.toThrow()
    await questions.cancelled
    expect(questions.signal.aborted).toBe(true)
  })

  it('gives each ask the deadline of --timeout, and takes the form down when it passes', async () => {
    const { client, inbox } = await spawnServer(['--timeout', '0.2'])
    const called = client.callTool({ name: 'plan_deployment' })
    const questions = await inbox.next()
    await questions.cancelled
    const result = await called
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^ASK_TIMEOUT: /)
  })

  it('stops cleanly when the client disconnects mid-question', async () => {
    const { client, inbox, stderr, stderrEnded } = await spawnServer()
    const called = client.callTool({ name: 'plan_deployment' })
    await inbox.next()
    await client.close()
    await expect(called).rejects.toThrow()
    await stderrEnded
    expect(stderr()).toContain('client disconnected; stopped')
  })
})

/** The `notifications/progress` messages among `messages`. */
function progressIn(messages: readonly JSONRPCMessage[]) {
  return messages.filter(
    (message) => 'method' in message && message.method === 'notifications/progress',
  )
}

/** Asserts that each progress is higher than the one before, as the MCP specification requires. */
function expectRising(progress: readonly Progress[]) {
  for (let index = 1; index < progress.length; index++) {
    expect(progress[index]!.progress).toBeGreaterThan(progress[index - 1]!.progress)
  }
}

/** A client whose request timeout (5 s) resets on progress, as desktop assistants do. */
function callWithShortTimeout(client: Client, progress: Progress[]) {
  return client.callTool({ name: 'plan_deployment' }, undefined, {
    timeout: 5_000,
    resetTimeoutOnProgress: true,
    onprogress: (update) => progress.push(update),
  })
}

describe('askseam mcp keeps a long wait alive (--keepalive)', () => {
  it(
    'a 15 s answer reaches a client whose request times out after 5 s without progress',
    { timeout: 60_000 },
    async () => {
      const { client, inbox, errors } = await spawnServer(['--keepalive', '1'])
      const progress: Progress[] = []
      const called = callWithShortTimeout(client, progress)
      const questions = await inbox.next()
      await humanTakes(15_000)
      questions.respond({ action: 'accept', content: { region: 'us-east-1' } })
      ;(await inbox.next()).respond({ action: 'accept', content: { plan: 'Approve' } })
      const result = await called
      expect(textOf(result)).toMatch(/^Approved\. The agent runs this plan:/)
      // 15 s of waiting under a 5 s timeout needs at least three of them.
      expect(progress.length).toBeGreaterThanOrEqual(3)
      expectRising(progress)
      expect(progress[0]?.message).toMatch(/^waiting for the human \(\d+ s\)$/)
      expect(errors).toEqual([])
    },
  )

  it(
    'without keepalive (--keepalive 0) the same call times out in the client',
    { timeout: 60_000 },
    async () => {
      const { client, inbox, received } = await spawnServer(['--keepalive', '0'])
      const progress: Progress[] = []
      const called = callWithShortTimeout(client, progress)
      const questions = await inbox.next()
      const failure = await called.then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(McpError)
      expect((failure as McpError).code).toBe(ErrorCode.RequestTimeout)
      // The client's cancellation of the timed-out call takes the form down.
      await questions.cancelled
      expect(progress).toEqual([])
      expect(progressIn(received)).toEqual([])
    },
  )

  it('sends no progress at all to a call that gave no progressToken', async () => {
    const { client, inbox, received } = await spawnServer(['--keepalive', '1'])
    const called = client.callTool({ name: 'plan_deployment' })
    const questions = await inbox.next()
    await humanTakes(3_000)
    questions.respond({ action: 'accept', content: {} })
    ;(await inbox.next()).respond({ action: 'accept', content: { plan: 'Approve' } })
    expect(textOf(await called)).toMatch(/^Approved\./)
    // Any notification sent before the ping's answer has arrived by then.
    await client.ping()
    expect(progressIn(received)).toEqual([])
  })

  it('sends no progress after the result, not even one interval later', async () => {
    const { client, inbox, received, errors } = await spawnServer(['--keepalive', '1'])
    const progress: Progress[] = []
    const called = callWithShortTimeout(client, progress)
    const questions = await inbox.next()
    await humanTakes(2_500)
    questions.respond({ action: 'accept', content: {} })
    ;(await inbox.next()).respond({ action: 'accept', content: { plan: 'Approve' } })
    expect(textOf(await called)).toMatch(/^Approved\./)
    const atResult = received.length
    expect(progressIn(received).length).toBeGreaterThan(0)
    await humanTakes(1_000)
    await client.ping()
    expect(progressIn(received.slice(atResult))).toEqual([])
    // A late one would also reach the client as "a progress notification for an unknown token".
    expect(errors).toEqual([])
  })
})
