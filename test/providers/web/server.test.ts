import { connect } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgentRegistry, createUserQuestions } from '../../../src/protocol/index.js'
import type { Agent, UserQuestionError } from '../../../src/protocol/index.js'
import { MAX_FRAME_BYTES, startWebConsole } from '../../../src/providers/web/index.js'
import type { WebConsole, WebConsoleOptions } from '../../../src/providers/web/index.js'
import { canonicalAnswer, questions, track, validAnswer } from './relay-harness.js'
import { openSocket } from './ws-client.js'
import type { TestSocket } from './ws-client.js'

const consoles: WebConsole[] = []
const sockets: TestSocket[] = []

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.ws.terminate()
  await Promise.all(consoles.splice(0).map((web) => web.close()))
})

async function start(options: Partial<WebConsoleOptions> = {}) {
  const agents = createAgentRegistry()
  const seam = createUserQuestions({ agents })
  const web = await startWebConsole({ seam, ...options })
  consoles.push(web)
  const agent = (id: string): Agent => {
    const instance = { id }
    agents.enter(instance)
    return instance
  }
  return { seam, web, agent }
}

async function open(url: string, headers?: Record<string, string>) {
  const socket = await openSocket(url, headers)
  sockets.push(socket)
  return socket
}

const respond = (rpcId: string, value: unknown = validAnswer) => ({
  type: 'question/respond',
  rpcId,
  result: { ok: true, value },
})

describe('startWebConsole', () => {
  it('binds loopback with a fresh random token per start, or the given one', async () => {
    const first = await start()
    const second = await start()
    expect(first.web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/)
    expect(first.web.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws\?token=[\w-]{43}$/)
    expect(first.web.token).not.toBe(second.web.token)
    const given = await start({ token: 'correct horse battery staple' })
    expect(given.web.token).toBe('correct horse battery staple')
    expect(given.web.url).toContain('token=correct%20horse%20battery%20staple')
  })

  it('serves the page only with the token, under a strict Content-Security-Policy', async () => {
    const { web } = await start()
    const page = await fetch(web.url)
    expect(page.status).toBe(200)
    const csp = page.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("default-src 'none'")
    expect(csp).not.toContain('unsafe-inline')
    const html = await page.text()
    expect(html).toContain('<script type="module" src="/console.js"></script>')
    expect(html).not.toMatch(/<script>[^<]/)
    const base = new URL(web.url)
    for (const search of ['', '?token=', '?token=wrong', `?token=${web.token}x`]) {
      const refused = await fetch(`${base.origin}/${search}`)
      expect(refused.status).toBe(401)
      expect(await refused.text()).not.toContain('console.js')
    }
    const script = await fetch(`${base.origin}/console.js`)
    expect(script.headers.get('content-type')).toContain('text/javascript')
    expect((await fetch(`${base.origin}/console.css`)).status).toBe(200)
    expect((await fetch(`${base.origin}/nothing-here`)).status).toBe(404)
    expect((await fetch(web.url, { method: 'POST' })).status).toBe(405)
  })

  it('refuses a WebSocket with a missing or wrong token, or a foreign Origin', async () => {
    const { web } = await start()
    const base = web.wsUrl.replace(/\?.*$/, '')
    await expect(openSocket(base)).rejects.toThrow('HTTP 401')
    await expect(openSocket(`${base}?token=nope`)).rejects.toThrow('HTTP 401')
    await expect(openSocket(web.wsUrl, { Origin: 'http://evil.example' })).rejects.toThrow(
      'HTTP 403',
    )
    const port = new URL(web.url).port
    await expect(
      openSocket(web.wsUrl, { Origin: `http://127.0.0.1:${Number(port) + 1}` }),
    ).rejects.toThrow('HTTP 403')
    await open(web.wsUrl, { Origin: `http://localhost:${port}` })
    await open(web.wsUrl)
    expect(web.relay.clientCount()).toBe(2)
  })

  it('relays an ask to a real WebSocket and back to the caller', async () => {
    const { seam, web } = await start()
    const socket = await open(web.wsUrl)
    const asked = seam.ask({ questions })
    const requested = await socket.next('question/requested')
    expect(requested.questions).toEqual(questions)
    socket.send(respond(requested.rpcId))
    expect(await asked).toEqual(canonicalAnswer)
    expect(await socket.next('receipt')).toEqual({
      type: 'receipt',
      rpcId: requested.rpcId,
      accepted: true,
    })
  })

  it('answers bad input with documented frames and stays up', async () => {
    const { seam, web } = await start()
    const socket = await open(web.wsUrl)
    const asked = track(seam.ask({ questions }))
    const { rpcId } = await socket.next('question/requested')
    socket.send('this is not json')
    expect(await socket.next('error')).toMatchObject({ code: 'invalid-json' })
    socket.send({ rpcId, answers: [] })
    expect(await socket.next('error')).toMatchObject({ code: 'invalid-frame' })
    socket.send({ type: 'question/ask', rpcId })
    expect(await socket.next('error')).toMatchObject({ code: 'unknown-type' })
    socket.send(respond('unknown-rpc'))
    expect(await socket.next('receipt')).toMatchObject({ accepted: false, reason: 'not-pending' })
    socket.send(respond(rpcId, { answers: [{ id: 'region', selected: ['nowhere'] }] }))
    expect(await socket.next('receipt')).toMatchObject({ accepted: false, reason: 'bad-response' })
    expect(asked.settled).toBe(0)
    socket.send(respond(rpcId))
    expect(await socket.next('receipt')).toMatchObject({ accepted: true })
    socket.send(respond(rpcId))
    expect(await socket.next('receipt')).toMatchObject({ accepted: false, reason: 'not-pending' })
    await vi.waitFor(() => expect(asked.value).toEqual(canonicalAnswer))
  })

  it('refuses an answer for a session the client may not see', async () => {
    const { seam, web, agent } = await start({
      authorize: (client, sessionId) =>
        new URL(client.request.url ?? '/', 'http://x').searchParams.get('session') === sessionId,
    })
    const alice = await open(`${web.wsUrl}&session=alice`)
    const bob = await open(`${web.wsUrl}&session=bob`)
    const asked = track(seam.ask({ questions, agent: agent('alice') }))
    const requested = await alice.next('question/requested')
    expect(requested.sessionId).toBe('alice')
    bob.send(respond(requested.rpcId))
    expect(await bob.next('receipt')).toEqual({
      type: 'receipt',
      rpcId: requested.rpcId,
      accepted: false,
      reason: 'forbidden',
    })
    expect(bob.frames.filter((frame) => frame.type === 'question/requested')).toEqual([])
    expect(asked.settled).toBe(0)
    alice.send(respond(requested.rpcId))
    await vi.waitFor(() => expect(asked.value).toEqual(canonicalAnswer))
  })

  it('closes a connection that sends a frame over 1 MiB with 1009, and keeps serving others', async () => {
    const { seam, web } = await start()
    const big = await open(web.wsUrl)
    const other = await open(web.wsUrl)
    big.send('x'.repeat(MAX_FRAME_BYTES + 1))
    expect(await big.closed).toBe(1009)
    const asked = seam.ask({ questions })
    const { rpcId } = await other.next('question/requested')
    other.send(respond(rpcId))
    expect(await asked).toEqual(canonicalAnswer)
  })

  it('lets another client answer while one sends a burst of 10,000 frames', async () => {
    const { seam, web } = await start()
    const noisy = await open(web.wsUrl)
    const calm = await open(web.wsUrl)
    const asked = seam.ask({ questions })
    const { rpcId } = await calm.next('question/requested')
    const bogus = JSON.stringify(respond('bogus'))
    for (let i = 0; i < 10_000; i++) noisy.ws.send(bogus)
    calm.send(respond(rpcId))
    expect(await asked).toEqual(canonicalAnswer)
    expect(await noisy.next('error')).toMatchObject({ code: 'rate-limited' })
    // The flood was cut: far fewer receipts than frames came back.
    expect(noisy.frames.filter((frame) => frame.type === 'receipt').length).toBeLessThanOrEqual(200)
  })

  it('drops a client that connects and never reads, without holding its backlog', async () => {
    const maxBufferedBytes = 256 * 1024
    const { seam, web } = await start({ limits: { maxBufferedBytes, stallTimeoutMs: 300 } })
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
    const reader = await open(web.wsUrl)
    const bulky = [{ id: 'plan', question: 'Approve?', detail: 'p'.repeat(64 * 1024) }]
    const asks: Promise<unknown>[] = []
    for (let i = 0; i < 400 && web.relay.clientCount() === 2; i++) {
      asks.push(seam.ask({ questions: bulky }).catch(() => undefined))
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    // The non-reader is paused, then dropped once it has read nothing for the stall timeout.
    await vi.waitFor(() => expect(web.relay.clientCount()).toBe(1), { timeout: 5_000 })
    raw.destroy()
    // The reader was never affected: it still answers.
    const { rpcId } = await reader.next('question/requested')
    reader.send(respond(rpcId, { answers: [{ id: 'plan', selected: [], custom: 'ok' }] }))
    await expect(asks[0]).resolves.toEqual({
      answers: [{ id: 'plan', selected: [], custom: 'ok' }],
    })
  })

  it('survives 1,000 connects and disconnects while asks are answered, settling each ask once and right', async () => {
    const { seam, web } = await start()
    const answerer = await open(web.wsUrl)
    const rounds = 20
    const churners = 50
    const accepted = new Map<string, number>()
    const count = (rpcId: string) => accepted.set(rpcId, (accepted.get(rpcId) ?? 0) + 1)
    const churnAnswer = {
      answers: [
        { id: 'region', selected: ['eu-west-1'] },
        { id: 'notes', selected: [] },
      ],
    }
    for (let round = 0; round < rounds; round++) {
      const asked = seam.ask({ questions })
      const { rpcId } = await answerer.next('question/requested', (frame) => frame.rpcId !== '')
      const clients = await Promise.all(Array.from({ length: churners }, () => open(web.wsUrl)))
      // Half of them race the steady answerer, then every one of them leaves.
      const racers = clients.filter((_, index) => index % 2 === 0)
      for (const racer of racers) racer.send(respond(rpcId, churnAnswer))
      answerer.send(respond(rpcId))
      const receipts = await Promise.all([
        answerer.next('receipt', (frame) => frame.rpcId === rpcId),
        ...racers.map((racer) => racer.next('receipt', (frame) => frame.rpcId === rpcId)),
      ])
      for (const receipt of receipts) if (receipt.accepted) count(rpcId)
      expect(
        receipts.every((receipt) => receipt.accepted || receipt.reason === 'not-pending'),
      ).toBe(true)
      const answer = await asked
      expect([canonicalAnswer, churnAnswer]).toContainEqual(answer)
      await Promise.all(clients.map((client) => client.close()))
      sockets.splice(sockets.length - churners, churners)
    }
    expect([...accepted.values()]).toEqual(Array.from({ length: rounds }, () => 1))
    await vi.waitFor(() => expect(web.relay.clientCount()).toBe(1))
    expect(web.relay.pending()).toEqual([])
  })

  it('withdraws pending asks when closed, and tells clients the console is restarting (1012)', async () => {
    const { seam, web } = await start()
    const socket = await open(web.wsUrl)
    const asked = track(seam.ask({ questions }))
    const { rpcId } = await socket.next('question/requested')
    await web.close()
    await vi.waitFor(() =>
      expect((asked.error as UserQuestionError | undefined)?.code).toBe('ASK_ABORTED'),
    )
    // The seam ended this ask (no grace); the console ended nothing by going.
    expect(await socket.closed).toBe(1012)
    expect(socket.frames).toContainEqual({ type: 'question/resolved', rpcId, outcome: 'aborted' })
  })

  it('tells clients the session ended (1001) when closed with sessionEnded, and keeps the first close', async () => {
    const { web } = await start()
    const socket = await open(web.wsUrl)
    const closing = web.close({ sessionEnded: true })
    expect(web.close()).toBe(closing)
    await closing
    expect(await socket.closed).toBe(1001)
  })

  it.each([null, 'yes', { sessionEnded: 'yes' }])(
    'still closes, as restarting (1012), when close is given %j instead of options',
    async (given) => {
      const { web } = await start()
      const socket = await open(web.wsUrl)
      await web.close(given as never)
      expect(await socket.closed).toBe(1012)
    },
  )
})
