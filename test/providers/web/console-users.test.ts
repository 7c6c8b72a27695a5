/**
 * The console's people (DESIGN §12) over real HTTP and WebSocket on
 * loopback: one token per person, the shared token refused, who answers
 * taken from the token (`via: 'web'` on the socket, `'http'` on the API),
 * and the API's statuses for asks with `answerers` and `approvals`, against
 * a fake seam that plays the core's calls.
 */
import * as crypto from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { UserQuestionError } from '../../../src/protocol/index.js'
import type {
  AskUserQuestionItem,
  ProviderRequest,
  ProviderSettlement,
  UserQuestionProvider,
} from '../../../src/protocol/index.js'
import { startWebConsole } from '../../../src/providers/web/index.js'
import type { WebConsole, WebConsoleOptions } from '../../../src/providers/web/index.js'
import { createTokenCheck } from '../../../src/providers/web/http.js'
import { readUsers } from '../../../src/providers/web/users.js'
import type { ApprovalCount, Responder } from '../../../src/vocabulary/index.js'
import { questions, track, validAnswer } from './relay-harness.js'
import { openSocket } from './ws-client.js'

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof crypto>()
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) }
})

const sha = (token: string) => crypto.createHash('sha256').update(token).digest('hex')
const users = [
  { id: 'ana', name: 'Ana', roles: ['ops'], tokenSha256: sha('ana-token-0123456789') },
  { id: 'bo', tokenSha256: sha('bo-token-0123456789').toUpperCase() },
]
const ana: Responder = { id: 'ana', name: 'Ana', roles: ['ops'], via: 'web' }

const plan: AskUserQuestionItem = {
  id: 'plan',
  question: 'Ship it?',
  detail: 'The plan',
  options: [{ label: 'Approve' }, { label: 'Revise' }],
  intent: { kind: 'plan-review', approve: 'Approve' },
}
const approve = { answers: [{ id: 'plan', selected: ['Approve'] }] }

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A console on a fake seam: `ask` presents an ask as the seam would, and returns its settlement's teller. */
async function start(options: Partial<WebConsoleOptions> = {}) {
  let provider: UserQuestionProvider | undefined
  const web = await startWebConsole({
    seam: {
      registerProvider(registered) {
        provider = registered
        return () => undefined
      },
    },
    users,
    ...options,
  })
  cleanups.push(() => web.close())
  const ask = (
    askId: string,
    extra: Partial<Pick<ProviderRequest, 'answerers' | 'approvals' | 'questions'>> = {},
  ) => {
    let tell!: (verdict: ProviderSettlement) => void
    const settlement = new Promise<ProviderSettlement>((resolve) => (tell = resolve))
    const answered = track(
      (provider as UserQuestionProvider).ask({
        askId,
        questions,
        signal: new AbortController().signal,
        settlement,
        ...extra,
      }),
    )
    return { answered, tell }
  }
  return { web, ask }
}

function api(web: WebConsole, token: string, path: string, body?: unknown) {
  return fetch(`${new URL(web.url).origin}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}

async function until(check: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(check()).toBe(true))
}

describe('startWebConsole({ users })', () => {
  it('refuses a users list with a problem, or users with a token, naming it', async () => {
    const seam = { registerProvider: () => () => undefined }
    await expect(startWebConsole({ seam, users: [] })).rejects.toThrow(
      new TypeError(
        'startWebConsole: users must be a non-empty list of { id, name?, roles?, tokenSha256 }',
      ),
    )
    await expect(
      startWebConsole({ seam, users: [{ id: 'ana', tokenSha256: 'abc' }] }),
    ).rejects.toThrow(/^startWebConsole: users\[0\]\.tokenSha256 must be/)
    await expect(
      startWebConsole({ seam, users, token: 'correct horse battery staple' }),
    ).rejects.toThrow(/token and users exclude each other/)
  })

  it('compares a token against every person in constant time, whichever matches', () => {
    const check = createTokenCheck({ users: readUsers(users) })
    const compare = vi.mocked(crypto.timingSafeEqual)
    compare.mockClear()
    expect(check('ana-token-0123456789')).toEqual({
      user: { id: 'ana', name: 'Ana', roles: ['ops'] },
    })
    expect(compare).toHaveBeenCalledTimes(users.length)
    compare.mockClear()
    expect(check('bo-token-0123456789')).toEqual({ user: { id: 'bo' } })
    expect(check('nobody')).toBeUndefined()
    expect(compare).toHaveBeenCalledTimes(2 * users.length)
  })

  it("refuses the shared token: the URL carries none, and each person's token opens the page, socket and API", async () => {
    const { web } = await start()
    expect(web.token).toBe('')
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(web.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/)
    expect((await fetch(web.url)).status).toBe(401)
    expect((await fetch(`${web.url}?token=`)).status).toBe(401)
    expect((await fetch(`${web.url}?token=ana-token-0123456789`)).status).toBe(200)
    await expect(openSocket(web.wsUrl)).rejects.toThrow('HTTP 401')
    expect((await api(web, '', '/api/asks')).status).toBe(401)
    expect((await api(web, 'bo-token-0123456789', '/api/asks')).status).toBe(200)
  })

  it("says hello to a tab with its person, and answers with by from the tab's token", async () => {
    const { web, ask } = await start()
    const tab = await openSocket(`${web.wsUrl}?token=ana-token-0123456789`)
    cleanups.push(() => tab.ws.terminate())
    expect(await tab.next('hello')).toEqual({
      type: 'hello',
      user: { id: 'ana', name: 'Ana', roles: ['ops'] },
    })
    const { answered } = ask('a1')
    await tab.next('question/requested')
    tab.send({ type: 'question/respond', rpcId: 'a1', result: { ok: true, value: validAnswer } })
    await until(() => answered.settled === 1)
    expect(answered.value).toMatchObject({ by: ana })
  })

  it("an API answer carries by with via 'http'; asks with answerers are listed, and answerable, only by the people they admit", async () => {
    const { web, ask } = await start()
    const { answered, tell } = ask('ops-only', { answerers: ['role:ops'] })
    const listed = async (token: string) =>
      (
        (await (await api(web, token, '/api/asks')).json()) as { asks: { rpcId: string }[] }
      ).asks.map((frame) => frame.rpcId)
    expect(await listed('ana-token-0123456789')).toEqual(['ops-only'])
    expect(await listed('bo-token-0123456789')).toEqual([])
    const forbidden = await api(
      web,
      'bo-token-0123456789',
      '/api/asks/ops-only/answer',
      validAnswer,
    )
    expect(forbidden.status).toBe(403)
    expect(await forbidden.json()).toMatchObject({ error: 'forbidden' })
    expect(answered.settled).toBe(0)
    const given = api(web, 'ana-token-0123456789', '/api/asks/ops-only/answer', validAnswer)
    await until(() => answered.settled === 1)
    expect(answered.value).toMatchObject({ by: { ...ana, via: 'http' } })
    tell({ status: 'accepted' })
    expect((await given).status).toBe(200)
  })

  it('a counted vote is 200 with the count; a second vote by the same person is 409 already-voted', async () => {
    const { web, ask } = await start()
    const count = (...given: string[]): ApprovalCount => ({
      required: 2,
      given: given.map((id) => ({ id, via: 'http' })),
    })
    const first = ask('plan', { questions: [plan], approvals: count() })
    const vote = api(web, 'ana-token-0123456789', '/api/asks/plan/answer', approve)
    await until(() => first.answered.settled === 1)
    first.tell({ status: 'counted', approvals: count('ana') })
    const counted = await vote
    expect(counted.status).toBe(200)
    expect(await counted.json()).toEqual({
      accepted: true,
      counted: { required: 2, given: ['ana'] },
    })
    ask('plan', { questions: [plan], approvals: count('ana') })
    const again = await api(web, 'ana-token-0123456789', '/api/asks/plan/answer', approve)
    expect(again.status).toBe(409)
    expect(await again.json()).toMatchObject({ error: 'already-voted' })
  })

  it("a seam's already-voted refusal is 409 too", async () => {
    const { web, ask } = await start()
    const { answered, tell } = ask('plan', {
      questions: [plan],
      approvals: { required: 2, given: [] },
    })
    const vote = api(web, 'ana-token-0123456789', '/api/asks/plan/answer', approve)
    await until(() => answered.settled === 1)
    tell({
      status: 'refused',
      error: new UserQuestionError('again', 'BAD_ANSWER', { details: { reason: 'already-voted' } }),
    })
    expect((await vote).status).toBe(409)
  })

  it('refuses a person whose token was removed from users once the console restarts (401)', async () => {
    const first = await start()
    const port = Number(new URL(first.web.url).port)
    expect((await api(first.web, 'bo-token-0123456789', '/api/asks')).status).toBe(200)
    await first.web.close()
    const { web, ask } = await start({ port, users: users.slice(0, 1) })
    const { answered } = ask('a1')
    const removed = await api(web, 'bo-token-0123456789', '/api/asks/a1/answer', validAnswer)
    expect(removed.status).toBe(401)
    await expect(openSocket(`${web.wsUrl}?token=bo-token-0123456789`)).rejects.toThrow('HTTP 401')
    expect(answered.settled).toBe(0)
  })
})
