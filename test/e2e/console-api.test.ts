/**
 * The HTTP API of a real `askseam console --store FILE` process on SQLite
 * (DESIGN §13): an agent in this process asks, a script answers over HTTP,
 * and the answer is committed in the shared file before the script hears
 * 200. A tab with the same ask open hears it resolved; an HTTP answer and a
 * tab's racing for one ask are accepted exactly once between them.
 */
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
const deploy = { answers: [{ id: 'go', selected: ['Deploy'] }] }
const wait = { answers: [{ id: 'go', selected: ['Wait'] }] }

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

type Frame = Record<string, unknown>

/** A console tab's socket that records frames and lets the test wait for one. */
async function openTab(pageUrl: string) {
  const page = new URL(pageUrl)
  const socket = new WebSocket(
    `ws://${page.host}/ws?token=${encodeURIComponent(page.searchParams.get('token') ?? '')}`,
  )
  cleanups.push(() => socket.terminate())
  const frames: Frame[] = []
  const waiters: Array<{ test: (frame: Frame) => boolean; resolve: (frame: Frame) => void }> = []
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Frame
    frames.push(frame)
    for (const waiter of waiters.splice(0)) {
      if (waiter.test(frame)) waiter.resolve(frame)
      else waiters.push(waiter)
    }
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  const next = (test: (frame: Frame) => boolean): Promise<Frame> => {
    const found = frames.find(test)
    if (found !== undefined) return Promise.resolve(found)
    return new Promise((resolve) => waiters.push({ test, resolve }))
  }
  return { socket, next }
}

async function startFleet() {
  const temp = tempDirectory()
  cleanups.push(() => temp.remove())
  const file = temp.file()
  const port = await freePort()
  const token = consoleToken()
  const store = createSqliteStore({ path: file })
  const seam = createUserQuestions({ store, waitForProviderMs: 30_000 })
  cleanups.push(async () => {
    await seam.close()
    await store.close()
  })
  const { url } = await startConsoleProcess(
    ['--store', file, '--port', String(port), '--token', token],
    (stop) => cleanups.push(stop),
  )
  const origin = new URL(url).origin
  const answer = (askId: string, body: unknown) =>
    fetch(`${origin}/api/asks/${askId}/answer`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
  const list = async () => {
    const response = await fetch(`${origin}/api/asks`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    return (await response.json()) as { asks: Frame[] }
  }
  return { url, store, seam, answer, list }
}

describe('askseam console --store: answers over HTTP', () => {
  it('commits an HTTP answer to the shared file before 200, and the open tab hears it resolved', async () => {
    const { url, store, seam, answer, list } = await startFleet()
    const tab = await openTab(url)
    const asked = seam.ask({ key: 'deploy-http', questions })
    const requested = await tab.next((frame) => frame.type === 'question/requested')
    const askId = String(requested.rpcId)
    expect((await list()).asks).toEqual([requested])

    const refused = await answer(askId, { answers: [{ id: 'colour', selected: [] }] })
    expect(refused.status).toBe(422)
    expect((await store.get(askId))?.state).toBe('pending')

    const response = await answer(askId, deploy)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ accepted: true })
    // 200 came after the commit: the row in the file holds the answer already.
    expect((await store.get(askId))?.outcome).toEqual({ status: 'answered', answer: deploy })
    expect(await asked).toEqual(deploy)
    expect(
      await tab.next((frame) => frame.type === 'question/resolved' && frame.rpcId === askId),
    ).toMatchObject({ outcome: 'answered' })
    expect((await list()).asks).toEqual([])
    expect((await answer(askId, deploy)).status).toBe(409)
  })

  it('accepts exactly one of an HTTP answer and a tab answer racing for one ask', async () => {
    const { url, store, seam, answer } = await startFleet()
    const tab = await openTab(url)
    const seen = new Set<string>()
    for (let round = 0; round < 3; round++) {
      const asked = seam.ask({ key: `race-${round}`, questions })
      const requested = await tab.next(
        (frame) => frame.type === 'question/requested' && !seen.has(String(frame.rpcId)),
      )
      const askId = String(requested.rpcId)
      seen.add(askId)
      const fromTab = () =>
        tab.socket.send(
          JSON.stringify({
            type: 'question/respond',
            rpcId: askId,
            result: { ok: true, value: wait },
          }),
        )
      if (round % 2 === 0) fromTab()
      const replied = answer(askId, deploy)
      if (round % 2 === 1) fromTab()
      const response = await replied
      const receipt = await tab.next((frame) => frame.type === 'receipt' && frame.rpcId === askId)
      expect([200, 409]).toContain(response.status)
      const httpWon = response.status === 200
      expect(receipt.accepted).toBe(!httpWon)
      const winner = httpWon ? deploy : wait
      expect((await store.get(askId))?.outcome).toEqual({ status: 'answered', answer: winner })
      expect(await asked).toEqual(winner)
    }
  })
})
