/**
 * examples/webhook-receiver.ts as a user runs it: a process of its own that
 * verifies askseam's webhooks with `standardwebhooks` and posts each waiting
 * question to a chat channel's incoming webhook (here a server of the test's).
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/protocol/index.js'
import { startNotifier } from '../../src/notify/index.js'
import { newAsk } from '../../src/protocol/store/contract-fixtures.js'
import { freePort } from '../support/console-process.js'
import { testSecret, until } from '../support/webhook-receiver.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('examples/webhook-receiver.ts', () => {
  it('verifies each webhook and posts the question, with its link, to the chat', async () => {
    const messages: unknown[] = []
    const chat = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString()))
      request.on('end', () => {
        messages.push(JSON.parse(body))
        response.writeHead(200).end()
      })
    })
    await new Promise<void>((resolve) => chat.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise<void>((resolve) => chat.close(() => resolve())))
    const secret = testSecret()
    const port = await freePort()
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'examples/webhook-receiver.ts')],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ASKSEAM_WEBHOOK_SECRET: secret,
          CHAT_WEBHOOK_URL: `http://127.0.0.1:${(chat.address() as AddressInfo).port}/`,
          PORT: String(port),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    cleanups.push(async () => {
      child.kill('SIGKILL')
      await exited
    })
    await new Promise<void>((resolve) =>
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('receiving on port')) resolve()
      }),
    )
    const store = createMemoryStore()
    const notifier = startNotifier({
      store,
      webhook: { url: `http://127.0.0.1:${port}/`, secret },
      consoleUrl: 'http://127.0.0.1:4000/?token=t',
    })
    cleanups.push(() => notifier.close())
    const ask = newAsk()
    await store.admit(ask)
    await until(() => messages.length === 1, 'the chat message')
    expect(messages).toEqual([
      { text: `ask.pending: Which database? http://127.0.0.1:4000/?token=t#ask=${ask.askId}` },
    ])
  })
})
