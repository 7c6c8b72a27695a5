/**
 * keepAlive as a tool handler author uses it: an McpServer tool and a
 * low-level Server handler, the official SDK client over InMemoryTransport
 * (as the rest of this folder), and a wait the test ends when it has heard
 * what it needs. The stdio round trips of `askseam mcp --keepalive` are in
 * test/e2e/mcp-stdio.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type {
  CallToolResult,
  Progress,
  ProgressNotification,
} from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { keepAlive } from '../../../src/providers/mcp/index.js'
import { deferred } from '../../support/deferred.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  vi.useRealTimers()
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
})

async function connect(server: McpServer | Server): Promise<Client> {
  const client = new Client({ name: 'keepalive-test', version: '0.0.0' })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  await client.connect(clientSide)
  cleanups.push(() => client.close())
  return client
}

/** Records progress, and resolves `heard` once `count` notifications arrived. */
function listen(count: number) {
  const progress: Progress[] = []
  const heard = deferred<void>()
  const onprogress = (update: Progress) => {
    progress.push(update)
    if (progress.length === count) heard.resolve()
  }
  return { progress, heard: heard.promise, onprogress }
}

/**
 * The `extra` an SDK handler gets, reduced to what keepAlive reads, with the
 * notifications it was asked to send: for the rules that need a clock the
 * test moves (the round trips above and in e2e use the real SDK).
 */
function handlerExtra(progressToken?: string | number) {
  const controller = new AbortController()
  const sent: Array<{ progress: number; message?: string | undefined }> = []
  return {
    controller,
    sent,
    extra: {
      signal: controller.signal,
      ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
      sendNotification: async (notification: ProgressNotification) => {
        sent.push({
          progress: notification.params.progress,
          message: notification.params.message,
        })
      },
    },
  }
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] })

describe('keepAlive', () => {
  it("keeps an McpServer tool's call alive with rising progress until the answer", async () => {
    const answer = deferred<string>()
    const server = new McpServer({ name: 'keepalive', version: '0.0.0' })
    server.registerTool('deploy', { description: 'Asks where, then deploys.' }, (extra) =>
      keepAlive(extra, async () => text(await answer.promise), { keepAliveMs: 20 }),
    )
    const client = await connect(server)
    const { progress, heard, onprogress } = listen(3)
    const called = client.callTool({ name: 'deploy' }, undefined, { onprogress })
    await heard
    answer.resolve('eu-west-1')
    expect(await called).toEqual(text('eu-west-1'))
    expect(progress.slice(0, 3).map((update) => update.progress)).toEqual([1, 2, 3])
    expect(progress[0]?.message).toBe('waiting for the human (0 s)')
  })

  it('fits a low-level Server handler, and rejects as the work does', async () => {
    const answer = deferred<string>()
    const server = new Server(
      { name: 'keepalive', version: '0.0.0' },
      { capabilities: { tools: {} } },
    )
    server.setRequestHandler(CallToolRequestSchema, (_request, extra) =>
      keepAlive(extra, async () => text(await answer.promise), { keepAliveMs: 20 }),
    )
    const client = await connect(server)
    const { heard, onprogress } = listen(1)
    const called = client.callTool({ name: 'deploy' }, undefined, { onprogress })
    await heard
    answer.reject(new Error('the human walked away'))
    await expect(called).rejects.toThrow('the human walked away')
  })

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses keepAliveMs %s with a TypeError, before the work starts',
    async (keepAliveMs) => {
      let started = false
      const extra = {
        signal: new AbortController().signal,
        _meta: { progressToken: 1 },
        sendNotification: async () => undefined,
      }
      const run = keepAlive(
        extra,
        () => {
          started = true
        },
        { keepAliveMs },
      )
      await expect(run).rejects.toThrow(TypeError)
      await expect(run).rejects.toThrow(/keepAliveMs must be a number of milliseconds, 0 or more/)
      expect(started).toBe(false)
    },
  )

  it('sends progress every 10 s by default, and none once the call is cancelled', async () => {
    vi.useFakeTimers()
    const { controller, extra, sent } = handlerExtra('call-1')
    const answer = deferred<string>()
    const running = keepAlive(extra, () => answer.promise)
    await vi.advanceTimersByTimeAsync(9_999)
    expect(sent).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    await vi.advanceTimersByTimeAsync(30_000)
    expect(sent).toEqual(
      [1, 2, 3, 4].map((progress) => ({
        progress,
        message: `waiting for the human (${progress * 10} s)`,
      })),
    )
    // The client cancelled; the work has not noticed yet, the keepalive has.
    controller.abort()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(sent).toHaveLength(4)
    answer.resolve('late')
    await expect(running).resolves.toBe('late')
  })

  it.each([
    ['gave no progressToken', undefined, 10],
    ['asked for keepAliveMs 0', 'call-1', 0],
  ])('sends nothing to a call that %s', async (_, token, keepAliveMs) => {
    vi.useFakeTimers()
    const { extra, sent } = handlerExtra(token)
    const answer = deferred<string>()
    const running = keepAlive(extra, () => answer.promise, { keepAliveMs })
    await vi.advanceTimersByTimeAsync(60_000)
    answer.resolve('done')
    await expect(running).resolves.toBe('done')
    expect(sent).toEqual([])
  })
})
