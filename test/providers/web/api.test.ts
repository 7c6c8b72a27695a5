/**
 * The console's HTTP API (DESIGN §13) over real HTTP on loopback, against a
 * real `startWebConsole` on the memory store: an answer through HTTP is held
 * to the rules a tab's is, and bad input changes nothing in the store.
 */
import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  createAgentRegistry,
  createMemoryStore,
  createUserQuestions,
} from '../../../src/protocol/index.js'
import type { Agent, AskStore } from '../../../src/protocol/index.js'
import { startWebConsole } from '../../../src/providers/web/index.js'
import type { WebConsoleOptions } from '../../../src/providers/web/index.js'
import { holdingStore } from '../../support/holding-store.js'
import { settle } from '../../support/settle.js'
import { canonicalAnswer, questions, track, validAnswer } from './relay-harness.js'
import { openSocket } from './ws-client.js'
import type { TestSocket } from './ws-client.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function start(options: Partial<WebConsoleOptions> & { store?: AskStore } = {}) {
  const agents = createAgentRegistry()
  const store = options.store ?? createMemoryStore()
  const seam = createUserQuestions({ agents, store })
  const web = await startWebConsole({ seam, ...options })
  cleanups.push(() => seam.close())
  cleanups.push(() => web.close())
  const agent = (id: string): Agent => {
    const instance = { id }
    agents.enter(instance)
    return instance
  }
  const origin = new URL(web.url).origin
  const call = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const { token = web.token, ...rest } = init
    const headers = new Headers(rest.headers)
    if (token !== null) headers.set('Authorization', `Bearer ${token}`)
    return fetch(`${origin}${path}`, { ...rest, headers })
  }
  const answer = (askId: string, body: unknown = validAnswer) =>
    call(`/api/asks/${askId}/answer`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
  return { seam, web, store, agent, call, answer, origin }
}

async function open(url: string, headers?: Record<string, string>): Promise<TestSocket> {
  const socket = await openSocket(url, headers)
  cleanups.push(() => socket.ws.terminate())
  return socket
}

/** One request written as the test spells it: no client normalises the path or the headers. */
function rawRequest(
  origin: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      {
        host: hostname,
        port,
        method: options.method,
        path: options.path,
        headers: options.headers,
      },
      (response) => {
        let body = ''
        response.on('data', (chunk: Buffer) => (body += chunk.toString()))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body, headers: response.headers }),
        )
      },
    )
    sent.on('error', reject)
    sent.end(options.body)
  })
}

/** The ask is still pending in the store, as if nothing had been sent. */
async function expectPending(store: AskStore, askId: string): Promise<void> {
  const record = await store.get(askId)
  expect(record?.state).toBe('pending')
  expect(record?.outcome).toBeUndefined()
}

describe('the console HTTP API', () => {
  it('lists the asks a tab is shown, in the frames a tab gets', async () => {
    const { seam, web, call } = await start()
    const tab = await open(web.wsUrl)
    track(seam.ask({ questions }))
    track(seam.ask({ questions: [{ id: 'why', question: 'Why?' }], timeoutMs: 60_000 }))
    const first = await tab.next('question/requested')
    const second = await tab.next('question/requested')
    const listed = await call('/api/asks')
    expect(listed.status).toBe(200)
    expect(listed.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await listed.json()).toEqual({ asks: [first, second] })
    expect(second.deadline).toBeTypeOf('number')
  })

  it('answers with 200 only once the store committed it, and an open tab hears it resolved', async () => {
    const holding = holdingStore(createMemoryStore())
    const { seam, web, store, answer } = await start({ store: holding.store })
    const tab = await open(web.wsUrl)
    const asked = seam.ask({ questions })
    const { rpcId } = await tab.next('question/requested')
    let replied = false
    const reply = answer(rpcId).then((response) => {
      replied = true
      return response
    })
    await vi.waitFor(() => expect(holding.held.map((write) => write.kind)).toEqual(['settle']))
    await settle()
    expect(replied).toBe(false)
    await expectPending(store, rpcId)
    await holding.release()
    const response = await reply
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ accepted: true })
    expect((await store.get(rpcId))?.outcome).toEqual({
      status: 'answered',
      answer: canonicalAnswer,
    })
    expect(await asked).toEqual(canonicalAnswer)
    expect(await tab.next('question/resolved')).toEqual({
      type: 'question/resolved',
      rpcId,
      outcome: 'answered',
    })
    expect(tab.frames.filter((frame) => frame.type === 'receipt')).toEqual([])
  })

  it('dismisses as a tab does, and refuses a second settlement with 409', async () => {
    const { seam, web, store, call, answer } = await start()
    const tab = await open(web.wsUrl)
    const asked = track(seam.ask({ questions }))
    const { rpcId } = await tab.next('question/requested')
    const cancelled = await call(`/api/asks/${rpcId}/cancel`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'discuss' }),
    })
    expect(cancelled.status).toBe(200)
    expect(await cancelled.json()).toEqual({ accepted: true })
    await vi.waitFor(() => expect(asked.settled).toBe(1))
    expect(asked.error).toMatchObject({ code: 'ASK_CANCELLED', details: { reason: 'discuss' } })
    const cancelledOutcome = { status: 'rejected', error: { code: 'ASK_CANCELLED' } }
    expect((await store.get(rpcId))?.outcome).toMatchObject(cancelledOutcome)
    expect(await tab.next('question/resolved')).toMatchObject({ rpcId, outcome: 'cancelled' })

    const again = await answer(rpcId)
    expect(again.status).toBe(409)
    expect(await again.json()).toMatchObject({ error: 'not-pending' })
    const recancel = await call(`/api/asks/${rpcId}/cancel`, { method: 'POST' })
    expect(recancel.status).toBe(409)
    expect((await store.get(rpcId))?.outcome).toMatchObject(cancelledOutcome)
  })

  it('refuses a cancel whose body is not { reason } or whose reason it does not know with 422; the ask stays pending', async () => {
    const { seam, web, store, call } = await start()
    const tab = await open(web.wsUrl)
    const asked = track(seam.ask({ questions }))
    const { rpcId } = await tab.next('question/requested')
    const post = (body: string) => call(`/api/asks/${rpcId}/cancel`, { method: 'POST', body })
    const later = await post(JSON.stringify({ reason: 'later' }))
    expect(later.status).toBe(422)
    expect(await later.json()).toMatchObject({
      error: 'bad-response',
      message: expect.stringContaining('"dismissed" or "discuss"'),
    })
    for (const body of ['"discuss"', '[1]', 'null']) {
      const refused = await post(body)
      expect(refused.status).toBe(422)
      expect(await refused.json()).toMatchObject({
        error: 'bad-response',
        message: 'the body must be { "reason": "dismissed" | "discuss" }, or empty',
      })
    }
    expect(asked.settled).toBe(0)
    expect((await store.get(rpcId))?.outcome).toBeUndefined()
    // An empty object is a plain dismissal, and so is no body at all.
    expect((await post('{}')).status).toBe(200)
    await vi.waitFor(() => expect(asked.settled).toBe(1))
    expect(asked.error).toMatchObject({ code: 'ASK_CANCELLED', details: { reason: 'dismissed' } })
    const next = track(seam.ask({ questions }))
    const { rpcId: nextId } = await tab.next('question/requested')
    expect((await call(`/api/asks/${nextId}/cancel`, { method: 'POST' })).status).toBe(200)
    await vi.waitFor(() => expect(next.settled).toBe(1))
    expect(next.error).toMatchObject({ code: 'ASK_CANCELLED', details: { reason: 'dismissed' } })
  })

  it('refuses an answer after the answer, and one for an ask it never had, with 409', async () => {
    const { seam, web, answer, call } = await start()
    const tab = await open(web.wsUrl)
    const asked = seam.ask({ questions })
    const { rpcId } = await tab.next('question/requested')
    expect((await answer(rpcId)).status).toBe(200)
    expect(await asked).toEqual(canonicalAnswer)
    const cancel = await call(`/api/asks/${rpcId}/cancel`, { method: 'POST' })
    expect(cancel.status).toBe(409)
    expect(await cancel.json()).toMatchObject({ error: 'not-pending' })
    const unknown = await answer('7d444840-9dc0-11d1-b245-5ffdce74fad2')
    expect(unknown.status).toBe(409)
  })

  it('answers 422 with the rule for an answer to other questions, and the ask stays pending', async () => {
    const { seam, web, store, answer } = await start()
    const tab = await open(web.wsUrl)
    const asked = track(seam.ask({ questions }))
    const { rpcId } = await tab.next('question/requested')
    const foreign = await answer(rpcId, { answers: [{ id: 'colour', selected: ['red'] }] })
    expect(foreign.status).toBe(422)
    const body = (await foreign.json()) as { error: string; message: string; details: unknown }
    expect(body.error).toBe('bad-response')
    expect(body.message).toMatch(/colour/)
    expect(body.details).toMatchObject({ questionId: 'colour' })
    const misfit = await answer(rpcId, { answers: [{ id: 'region', selected: ['nowhere'] }] })
    expect(misfit.status).toBe(422)
    expect(await misfit.json()).toMatchObject({
      error: 'bad-response',
      details: { rule: expect.any(String) },
    })
    const notAnAnswer = await answer(rpcId, [1, 2, 3])
    expect(notAnAnswer.status).toBe(422)
    expect(await notAnAnswer.json()).toMatchObject({ details: { rule: 'shape' } })
    await expectPending(store, rpcId)
    expect(asked.settled).toBe(0)
    expect((await answer(rpcId)).status).toBe(200)
  })

  it('refuses bad input with 400, 401, 404, 405 and 413, and none of it touches the store', async () => {
    const { seam, web, store, call, answer, origin } = await start()
    const tab = await open(web.wsUrl)
    const asked = track(seam.ask({ questions }))
    const { rpcId } = await tab.next('question/requested')

    const notJson = await answer(rpcId, '{"answers": [')
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toMatchObject({ error: 'invalid-json' })
    expect((await answer(rpcId, '')).status).toBe(400)

    for (const token of [null, 'wrong', `${web.token}x`, '']) {
      const refused = await call(`/api/asks/${rpcId}/answer`, {
        method: 'POST',
        token,
        body: JSON.stringify(validAnswer),
      })
      expect(refused.status).toBe(401)
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/)
      expect(await refused.json()).toMatchObject({ error: 'unauthorized' })
    }
    const basic = await call('/api/asks', {
      token: null,
      headers: { Authorization: `Basic ${Buffer.from(`x:${web.token}`).toString('base64')}` },
    })
    expect(basic.status).toBe(401)
    expect((await call('/api/asks', { token: ` ${web.token}` })).status).toBe(200)
    // The page's query token is not an API credential.
    expect((await call(`/api/asks?token=${web.token}`, { token: null })).status).toBe(401)

    const wrongMethod = await call(`/api/asks/${rpcId}/answer`)
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('POST')
    const putList = await call('/api/asks', { method: 'PUT' })
    expect(putList.status).toBe(405)
    expect(putList.headers.get('allow')).toBe('GET')
    expect((await call(`/api/asks/${rpcId}/delete`, { method: 'POST' })).status).toBe(404)
    expect((await call('/api/nothing')).status).toBe(404)

    const big = await answer(rpcId, JSON.stringify({ answers: [], pad: 'x'.repeat(1024 * 1024) }))
    expect(big.status).toBe(413)
    expect(await big.json()).toMatchObject({ error: 'payload-too-large' })

    const authorization = `Bearer ${web.token}`
    for (const path of [
      `/api/asks/..%2F..%2F${rpcId}/answer`,
      `/api/asks/${rpcId}%2Fanswer/answer`,
      `/api/asks/${rpcId}%2fcancel/cancel`,
      `/api/asks/%2E%2E/answer`,
      `/api/asks/${'a'.repeat(129)}/answer`,
      `/api/asks/../asks/${rpcId}/answer`,
      `/api/asks/./${rpcId}/answer`,
      `/api/asks/${rpcId}/../${rpcId}/answer`,
    ]) {
      const tricked = await rawRequest(origin, {
        method: 'POST',
        path,
        headers: { Authorization: authorization, 'Content-Type': 'application/json' },
        body: JSON.stringify(validAnswer),
      })
      expect([400, 404], path).toContain(tricked.status)
    }
    expect(
      (
        await rawRequest(origin, {
          method: 'POST',
          path: `/api/asks/${rpcId}/answer/`,
          headers: { Authorization: authorization },
          body: JSON.stringify(validAnswer),
        })
      ).status,
    ).toBe(404)

    const foreignOrigin = await call(`/api/asks/${rpcId}/answer`, {
      method: 'POST',
      headers: { Origin: 'http://evil.example' },
      body: JSON.stringify(validAnswer),
    })
    expect(foreignOrigin.status).toBe(403)
    const rebound = await rawRequest(origin, {
      method: 'POST',
      path: `/api/asks/${rpcId}/answer`,
      headers: { Host: 'attacker.example', Authorization: authorization },
      body: JSON.stringify(validAnswer),
    })
    expect(rebound.status).toBe(421)

    await expectPending(store, rpcId)
    expect(asked.settled).toBe(0)
    expect(tab.frames.filter((frame) => frame.type === 'question/resolved')).toEqual([])
    const ownOrigin = await call(`/api/asks/${rpcId}/answer`, {
      method: 'POST',
      headers: { Origin: origin },
      body: JSON.stringify(validAnswer),
    })
    expect(ownOrigin.status).toBe(200)
  })

  it('stops reading a streamed body at 1 MiB and answers 413', async () => {
    const { seam, web, store, origin } = await start()
    const tab = await open(web.wsUrl)
    track(seam.ask({ questions }))
    const { rpcId } = await tab.next('question/requested')
    const { port } = new URL(origin)
    const socket = connect(Number(port), '127.0.0.1')
    cleanups.push(() => socket.destroy())
    let reply = ''
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString()))
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    socket.on('error', () => undefined)
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    socket.write(
      `POST /api/asks/${rpcId}/answer HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        `Authorization: Bearer ${web.token}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    )
    // Chunks of 64 KiB, no length declared: only counting what arrives finds the limit.
    const chunk = 'x'.repeat(64 * 1024)
    for (let sent = 0; sent <= 1024 * 1024; sent += chunk.length) {
      socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)
    }
    await vi.waitFor(() => expect(reply).toMatch(/^HTTP\/1\.1 413 /))
    await closed
    expect(reply).toContain('payload-too-large')
    await expectPending(store, rpcId)
  })

  it('takes a given token as it is, spaces and all', async () => {
    const { call } = await start({ token: 'correct horse battery staple' })
    expect((await call('/api/asks')).status).toBe(200)
    expect((await call('/api/asks', { token: 'correct horse battery' })).status).toBe(401)
  })

  it('answers 403 where a tab would hear forbidden, and lists only what the token may see', async () => {
    const { seam, web, store, agent, call, answer } = await start({
      authorize: (client, sessionId) =>
        sessionId === 'alice' || client.request.headers['x-team'] === 'ops',
    })
    const tab = await open(web.wsUrl, { 'X-Team': 'ops' })
    const forAlice = track(seam.ask({ questions, agent: agent('alice') }))
    const forBob = track(seam.ask({ questions, agent: agent('bob') }))
    const alice = await tab.next('question/requested', (frame) => frame.sessionId === 'alice')
    const bob = await tab.next('question/requested', (frame) => frame.sessionId === 'bob')
    const listed = (await (await call('/api/asks')).json()) as { asks: { rpcId: string }[] }
    expect(listed.asks.map((ask) => ask.rpcId)).toEqual([alice.rpcId])
    const refused = await answer(bob.rpcId)
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ error: 'forbidden' })
    await expectPending(store, bob.rpcId)
    expect(forBob.settled).toBe(0)
    const asOps = await call(`/api/asks/${bob.rpcId}/answer`, {
      method: 'POST',
      headers: { 'X-Team': 'ops' },
      body: JSON.stringify(validAnswer),
    })
    expect(asOps.status).toBe(200)
    expect((await answer(alice.rpcId)).status).toBe(200)
    await vi.waitFor(() => expect(forAlice.value).toEqual(canonicalAnswer))
  })

  it('lets exactly one of an HTTP answer and a tab answer racing for one ask win', async () => {
    const { seam, web, store, answer } = await start()
    const tab = await open(web.wsUrl)
    for (let round = 0; round < 5; round++) {
      const asked = seam.ask({ questions })
      const { rpcId } = await tab.next('question/requested')
      const tabAnswer = {
        answers: [
          { id: 'region', selected: ['eu-west-1'] },
          { id: 'notes', selected: [] },
        ],
      }
      const fromTab = () =>
        tab.send({ type: 'question/respond', rpcId, result: { ok: true, value: tabAnswer } })
      // Each goes first in turn; neither waits for the other.
      if (round % 2 === 0) fromTab()
      const replied = answer(rpcId)
      if (round % 2 === 1) fromTab()
      const response = await replied
      const receipt = await tab.next('receipt', (frame) => frame.rpcId === rpcId)
      const httpWon = response.status === 200
      expect([200, 409]).toContain(response.status)
      expect(receipt.accepted).toBe(!httpWon)
      const committed = (await store.get(rpcId))?.outcome
      expect(committed).toEqual({
        status: 'answered',
        answer: httpWon ? canonicalAnswer : tabAnswer,
      })
      expect(await asked).toEqual(committed?.status === 'answered' ? committed.answer : undefined)
    }
  })
})
