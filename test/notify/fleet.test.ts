/**
 * Several notifiers on one store (DESIGN §13): each event is delivered once
 * between them, counted by `webhook-id` at a real receiver; and an event
 * whose notifier is SIGKILLed while it holds the claim (the receiver holds
 * the request open) is delivered by the other once the claim lapses. On the
 * memory store, a SQLite file and a Postgres schema; the killed notifiers are
 * `askseam notify` processes.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { startNotifier } from '../../src/notify/index.js'
import { answered, newAsk } from '../../src/protocol/store/contract-fixtures.js'
import { describeDialects } from '../support/dialects.js'
import { startReceiver, testSecret, until } from '../support/webhook-receiver.js'

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function eventually(check: () => Promise<boolean>, what: string, limitMs = 60_000) {
  const end = Date.now() + limitMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Two notifiers on two handles of one store: every event of five asks arrives once. */
async function deliveredOnceBetweenThem(store: AskStore, other: AskStore): Promise<void> {
  const secret = testSecret()
  const hook = await startReceiver(secret)
  cleanups.push(() => hook.close())
  for (const handle of [store, other]) {
    const notifier = startNotifier({ store: handle, webhook: { url: hook.url, secret } })
    cleanups.push(() => notifier.close())
  }
  const asks = Array.from({ length: 5 }, () => newAsk())
  for (const ask of asks) await store.admit(ask)
  await until(() => hook.delivered().size === 5, 'every ask.pending', 30_000)
  for (const ask of asks) await other.settle(ask.askId, answered, Date.now())
  await until(() => hook.delivered().size === 10, 'every ask.settled', 30_000)
  // Every event finished in the ledger: no chain is left that could send one again.
  await eventually(
    async () => (await store.notifications?.unfinished())?.length === 0,
    'the ledger',
  )
  const expected = asks.flatMap((ask) => [`${ask.askId}.pending`, `${ask.askId}.settled`])
  expect([...hook.delivered().keys()].sort()).toEqual(expected.sort())
  for (const receipts of hook.delivered().values()) expect(receipts).toHaveLength(1)
  expect(hook.receipts).toHaveLength(10)
  expect(hook.rejected).toEqual([])
}

describe('two notifiers on one memory store', () => {
  it('deliver each event once between them', async () => {
    const store = createMemoryStore()
    await deliveredOnceBetweenThem(store, store)
  })
})

/** `askseam notify` in a child process of its own, SIGKILLed by the cleanup if still running. */
async function notifyProcess(storeArgs: string[], webhook: string, secret: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, 'notify', ...storeArgs, '--webhook', webhook, '--secret', secret],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  cleanups.push(kill)
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('askseam notify')) resolve()
    })
    child.once('exit', () => reject(new Error('askseam notify exited before it started')))
  })
  return { kill }
}

describeDialects('notifiers sharing a durable store', (storage) => {
  it('deliver each event once between them', async () => {
    const shared = await storage()
    await deliveredOnceBetweenThem(shared.open(), shared.open())
  })

  it('deliver the event whose notifier was SIGKILLed holding its claim, once the claim lapses', async () => {
    const shared = await storage()
    const store = shared.open()
    const secret = testSecret()
    // The first request is held open: its sender is killed while it waits.
    const hook = await startReceiver(secret, ({ count }) => (count === 1 ? 'hang' : 200))
    cleanups.push(() => hook.close())
    const storeArgs =
      shared.dialect === 'sqlite' ? ['--store', shared.location] : ['--postgres', shared.location]
    const first = await notifyProcess(storeArgs, hook.url, secret)
    const ask = newAsk()
    await store.admit(ask)
    await until(() => hook.receipts.length === 1, 'the first try, held open', 30_000)
    const second = await notifyProcess(storeArgs, hook.url, secret)
    await first.kill()
    await until(() => hook.delivered().size === 1, 'the delivery by the other notifier', 60_000)
    expect(hook.receipts.map((receipt) => [receipt.id, receipt.status])).toEqual([
      [`${ask.askId}.pending`, 0],
      [`${ask.askId}.pending`, 200],
    ])
    await second.kill()
  }, 90_000)
})
