/**
 * `askseam console --store FILE`: one web console, in its own process, for
 * every process sharing the file (DESIGN §10). An ask raised here is answered
 * through the console's WebSocket; after the console restarts on the same
 * port and token, a client reconnects to the same URL and sees what is still
 * pending.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createUserQuestions } from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'
import {
  consoleToken,
  freePort,
  startConsole as startConsoleProcess,
} from '../support/console-process.js'

const questions = [
  { id: 'go', question: 'Deploy now?', options: [{ label: 'Deploy' }, { label: 'Wait' }] },
]
const cleanups: Array<() => void | Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const startConsole = (args: string[]) => startConsoleProcess(args, (stop) => cleanups.push(stop))

function socketFor(pageUrl: string): { socket: WebSocket; frames: Array<Record<string, unknown>> } {
  const page = new URL(pageUrl)
  const socket = new WebSocket(
    `ws://${page.host}/ws?token=${encodeURIComponent(page.searchParams.get('token') ?? '')}`,
  )
  const frames: Array<Record<string, unknown>> = []
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as Record<string, unknown>))
  cleanups.push(() => socket.terminate())
  return { socket, frames }
}

async function until<T>(read: () => T | undefined, what: string): Promise<T> {
  const end = Date.now() + 30_000
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('askseam console --store', () => {
  it('serves the asks of another process, and a restarted console on the same port and token serves them again', async () => {
    const temp = tempDirectory()
    cleanups.push(() => temp.remove())
    const file = temp.file()
    const port = await freePort()
    const token = consoleToken()
    const args = ['--store', file, '--port', String(port), '--token', token]

    const store = createSqliteStore({ path: file })
    // The grace covers the console's restart: without it the last UI going away ends the ask (DESIGN §4).
    const seam = createUserQuestions({ store, waitForProviderMs: 30_000, providerGraceMs: 30_000 })
    cleanups.push(async () => {
      await seam.close()
      await store.close()
    })

    const first = await startConsole(args)
    const asked = seam.ask({ key: 'console-e2e', questions })
    const one = socketFor(first.url)
    const requested = await until(
      () => one.frames.find((frame) => frame.type === 'question/requested'),
      'the question in the console',
    )
    expect(requested.questions).toEqual(questions)

    // The console goes away and comes back on the same address: the page's URL still works.
    first.child.kill('SIGTERM')
    await new Promise((resolve) => first.child.once('exit', resolve))
    const second = await startConsole(args)
    expect(second.url).toBe(first.url)
    const two = socketFor(second.url)
    const replayed = await until(
      () => two.frames.find((frame) => frame.type === 'question/requested'),
      'the question replayed after the restart',
    )
    expect(replayed.rpcId).toBe(requested.rpcId)
    two.socket.send(
      JSON.stringify({
        type: 'question/respond',
        rpcId: replayed.rpcId,
        result: { ok: true, value: { answers: [{ id: 'go', selected: ['Deploy'] }] } },
      }),
    )
    await expect(asked).resolves.toEqual({ answers: [{ id: 'go', selected: ['Deploy'] }] })
    const receipt = await until(
      () => two.frames.find((frame) => frame.type === 'receipt'),
      'the receipt',
    )
    expect(receipt).toEqual({ type: 'receipt', rpcId: replayed.rpcId, accepted: true })
  }, 90_000)

  it('refuses to start without a store, in one line', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'console'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise((resolve) => child.once('exit', resolve))
    expect(code).not.toBe(0)
    expect(stderr).toMatch(
      /^askseam: askseam console serves a shared store: give --store FILE or --postgres URL\n/,
    )
  }, 60_000)
})
