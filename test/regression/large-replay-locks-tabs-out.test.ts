import { connect } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import type { WebConsole, WebConsoleOptions } from '../../src/providers/web/index.js'
import { openSocket } from '../providers/web/ws-client.js'
import type { TestSocket } from '../providers/web/ws-client.js'

// Issue 10, item 6: when the question/requested frames owed to a tab added
// up to more than its backlog bound (4 MiB), the replay was queued before
// anything was flushed and the congestion check dropped the tab right after
// it connected — one 4.5 MB plan, or five 1 MB plans, locked every tab out.
// DESIGN §7: a client is dropped only when it stops reading.

const consoles: WebConsole[] = []
const sockets: TestSocket[] = []

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.ws.terminate()
  await Promise.all(consoles.splice(0).map((web) => web.close()))
})

async function start(limits?: WebConsoleOptions['limits']) {
  const seam = createUserQuestions()
  const web = await startWebConsole({ seam, ...(limits === undefined ? {} : { limits }) })
  consoles.push(web)
  return { seam, web }
}

async function open(url: string) {
  const socket = await openSocket(url)
  sockets.push(socket)
  return socket
}

function plan(id: string, bytes: number): AskUserQuestionItem[] {
  return [
    {
      id,
      question: 'Approve this plan?',
      detail: `${id}: ${'step. '.repeat(Math.ceil(bytes / 6))}`,
      options: [{ label: 'Approve' }, { label: 'Revise' }],
      intent: { kind: 'plan-review', approve: 'Approve' },
    },
  ]
}

const approve = (rpcId: string, id: string) => ({
  type: 'question/respond',
  rpcId,
  result: { ok: true, value: { answers: [{ id, selected: ['Approve'] }] } },
})

describe('what a (re)connecting tab is owed is paced by what it reads', () => {
  it('replays one 4.5 MB plan to a tab that connects later, which then answers it', async () => {
    const { seam, web } = await start()
    const asked = seam.ask({ questions: plan('big', 4.5 * 1024 * 1024) })
    const tab = await open(web.wsUrl)
    const requested = await tab.next('question/requested')
    expect(requested.questions[0]?.detail?.length).toBeGreaterThan(4.5 * 1024 * 1024)
    tab.send(approve(requested.rpcId, 'big'))
    await expect(asked).resolves.toEqual({ answers: [{ id: 'big', selected: ['Approve'] }] })
    expect(await tab.next('receipt')).toMatchObject({ accepted: true })
    expect(web.relay.clientCount()).toBe(1)
  })

  it('replays five 1 MB plans to a tab that connects later, which answers every one', async () => {
    const { seam, web } = await start()
    const ids = ['p1', 'p2', 'p3', 'p4', 'p5']
    const asks = ids.map((id) => seam.ask({ questions: plan(id, 1024 * 1024) }))
    const tab = await open(web.wsUrl)
    for (const id of ids) {
      const requested = await tab.next(
        'question/requested',
        (frame) => frame.questions[0]?.id === id,
      )
      tab.send(approve(requested.rpcId, id))
    }
    const answers = await Promise.all(asks)
    expect(answers.map((answer) => answer.answers[0]?.id)).toEqual(ids)
    expect(web.relay.clientCount()).toBe(1)
    // A second tab opened meanwhile is not locked out either.
    const later = await open(web.wsUrl)
    const next = seam.ask({ questions: plan('p6', 1024 * 1024) })
    const requested = await later.next('question/requested')
    later.send(approve(requested.rpcId, 'p6'))
    await expect(next).resolves.toEqual({ answers: [{ id: 'p6', selected: ['Approve'] }] })
  })

  it('still drops a tab that never reads, and only after it stalls', async () => {
    const { seam, web } = await start({ stallTimeoutMs: 500 })
    const asks = ['p1', 'p2', 'p3', 'p4', 'p5'].map((id) =>
      seam.ask({ questions: plan(id, 1024 * 1024) }).catch(() => undefined),
    )
    const { port, searchParams } = new URL(web.wsUrl)
    const raw = connect(Number(port), '127.0.0.1')
    await new Promise<void>((resolve) => raw.once('connect', () => resolve()))
    raw.write(
      `GET /ws?token=${searchParams.get('token')} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    )
    raw.pause()
    await vi.waitFor(() => expect(web.relay.clientCount()).toBe(1))
    // The kernel's socket buffers take several megabytes before the backlog
    // shows; keep the asks coming until the relay gives the reader up.
    for (let i = 0; i < 40 && web.relay.clientCount() === 1; i++) {
      asks.push(seam.ask({ questions: plan(`more${i}`, 1024 * 1024) }).catch(() => undefined))
      await new Promise<void>((resolve) => setTimeout(resolve, 50))
    }
    await vi.waitFor(() => expect(web.relay.clientCount()).toBe(0), { timeout: 5_000 })
    raw.destroy()
    // A reading tab that comes next is owed everything, and gets it.
    const tab = await open(web.wsUrl)
    const requested = await tab.next(
      'question/requested',
      (frame) => frame.questions[0]?.id === 'p1',
    )
    tab.send(approve(requested.rpcId, 'p1'))
    await expect(asks[0]).resolves.toEqual({ answers: [{ id: 'p1', selected: ['Approve'] }] })
  })
})
