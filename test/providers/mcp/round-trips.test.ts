import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Server, createMcpHandler } from '@modelcontextprotocol/server'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../../src/protocol/index.js'
import type { AskStore, UserQuestions } from '../../../src/protocol/index.js'
import { createRoundTrips, serveTools } from '../../../src/providers/mcp/index.js'
import type { RoundTrips } from '../../../src/providers/mcp/index.js'

/*
 * Multi Round-Trip Requests against the official TypeScript SDK v2 on both
 * ends (its per-request HTTP handler and its client in manual mode, joined
 * by a fetch that calls the handler), so each fault test sends exactly the
 * retry it means to.
 */

const SECRET = 'a fleet secret that is long enough to seal state'

const dbQuestion = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres' }, { label: 'SQLite' }],
}
const cacheQuestion = {
  id: 'cache',
  question: 'Which cache?',
  options: [{ label: 'Redis' }, { label: 'None' }],
}

interface InputRequiredShape {
  resultType: 'input_required'
  inputRequests: Record<
    string,
    { method: string; params: { requestedSchema: { properties: Record<string, unknown> } } }
  >
  requestState: string
}

interface Setup {
  store: AskStore
  seam: UserQuestions
  rounds: RoundTrips
  client(name?: string, capabilities?: Record<string, unknown>): Promise<Client>
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setUp(options: { timeoutMs?: number; stateTtlMs?: number } = {}): Promise<Setup> {
  let detours = 0
  let fickle = 0
  const store = createMemoryStore()
  const seam = createUserQuestions({
    store,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  })
  const rounds = createRoundTrips({
    seam,
    store,
    secret: SECRET,
    ...(options.stateTtlMs === undefined ? {} : { stateTtlMs: options.stateTtlMs }),
  })
  const handler = createMcpHandler(
    () => {
      const server = new Server(
        { name: 'rounds', version: '0.0.0' },
        { capabilities: { tools: {} } },
      )
      serveTools(server, rounds, [
        {
          name: 'pick_both',
          handler: async (asking) => {
            const [db, cache] = await Promise.all([
              asking.ask({ questions: [dbQuestion] }),
              asking.ask({ questions: [cacheQuestion] }),
            ])
            const chosen = [db, cache].map((answer) => answer.answers[0]?.selected[0] ?? 'nothing')
            return { content: [{ type: 'text', text: chosen.join(' + ') }] }
          },
        },
        {
          // From its second run on, it first asks something it did not ask before.
          name: 'detour',
          handler: async (asking) => {
            detours += 1
            if (detours > 1) await asking.ask({ key: 'detour:cache', questions: [cacheQuestion] })
            const db = await asking.ask({ key: 'detour:db', questions: [dbQuestion] })
            return { content: [{ type: 'text', text: db.answers[0]?.selected[0] ?? 'nothing' }] }
          },
        },
        {
          // Asks the database on its first run, the cache on every later one.
          name: 'fickle',
          handler: async (asking, args) => {
            fickle += 1
            const key = args.key === undefined ? {} : { key: String(args.key) }
            const questions = [fickle > 1 ? cacheQuestion : dbQuestion]
            const asked = await asking.ask({ questions, ...key })
            return { content: [{ type: 'text', text: asked.answers[0]?.selected[0] ?? '' }] }
          },
        },
        {
          name: 'broken',
          handler: () => Promise.reject(new Error('the deploy API is down')),
        },
        {
          name: 'pick_stack',
          handler: async (asking, args) => {
            const db = await asking.ask({ questions: [dbQuestion] })
            const cache = await asking.ask({ questions: [cacheQuestion] })
            const chosen = [db, cache].map((answer) => answer.answers[0]?.selected[0] ?? 'nothing')
            return {
              content: [
                { type: 'text', text: `${String(args.project ?? 'app')}: ${chosen.join(' + ')}` },
              ],
            }
          },
        },
      ])
      return server
    },
    { legacy: 'reject' },
  )
  cleanups.push(async () => {
    await handler.close()
    rounds.close()
    await seam.close()
    await store.close()
  })
  return {
    store,
    seam,
    rounds,
    async client(name = 'fault-client', capabilities = { elicitation: { form: {} } }) {
      const client = new Client(
        { name, version: '0.0.0' },
        {
          capabilities,
          versionNegotiation: { mode: { pin: '2026-07-28' } },
          inputRequired: { autoFulfill: false },
        },
      )
      await client.connect(
        new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
          fetch: (url, init) => handler.fetch(new Request(url, init)),
        }),
      )
      cleanups.push(() => client.close())
      return client
    },
  }
}

type CallParams = {
  name: string
  arguments?: Record<string, unknown>
  inputResponses?: Record<string, unknown>
  requestState?: string
}

function call(client: Client, params: CallParams): Promise<unknown> {
  return client.callTool(params as never, { allowInputRequired: true } as never)
}

async function firstRound(client: Client, args: Record<string, unknown> = {}) {
  const result = (await call(client, { name: 'pick_stack', arguments: args })) as InputRequiredShape
  expect(result.resultType).toBe('input_required')
  const [askId] = Object.keys(result.inputRequests)
  return { result, askId: askId as string }
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content })

function textOf(result: unknown): string {
  const { content } = result as { content: Array<{ type: string; text?: string }> }
  return content.map((block) => block.text ?? '').join('')
}

async function stillPending(store: AskStore, askId: string): Promise<void> {
  const record = await store.get(askId)
  expect(record?.state).toBe('pending')
}

describe('a tool call served by round trips', () => {
  it('asks each question in turn and completes with the answers', async () => {
    const { client: connect } = await setUp()
    const client = await connect()
    const { result, askId } = await firstRound(client)
    expect(result.inputRequests[askId]).toMatchObject({
      method: 'elicitation/create',
      params: { mode: 'form', requestedSchema: { type: 'object' } },
    })
    expect(
      Object.keys(result.inputRequests[askId]?.params.requestedSchema.properties ?? {}),
    ).toEqual(['db', 'db_other'])
    const second = (await call(client, {
      name: 'pick_stack',
      arguments: {},
      inputResponses: { [askId]: accept({ db: 'SQLite' }) },
      requestState: result.requestState,
    })) as InputRequiredShape
    const [cacheAsk] = Object.keys(second.inputRequests)
    expect(cacheAsk).not.toBe(askId)
    const done = await call(client, {
      name: 'pick_stack',
      arguments: {},
      inputResponses: { [cacheAsk as string]: accept({ cache: 'Redis' }) },
      requestState: second.requestState,
    })
    expect(textOf(done)).toBe('app: SQLite + Redis')
  })

  it('records the client that answered, as its clientInfo names it (DESIGN §12)', async () => {
    const { client: connect, seam } = await setUp()
    const client = await connect('review-bot')
    const { result, askId } = await firstRound(client)
    await call(client, {
      name: 'pick_stack',
      arguments: {},
      inputResponses: { [askId]: accept({ db: 'SQLite' }) },
      requestState: result.requestState,
    })
    const [record] = await seam.history({ askId })
    expect(record?.outcome?.by).toEqual([{ id: 'name:review-bot', via: 'mcp' }])
  })

  it('records a client whose name holds a NUL by a name every store keeps, so its answer counts', async () => {
    const { client: connect, seam } = await setUp()
    const client = await connect('review\u0000bot')
    const { result, askId } = await firstRound(client)
    const done = await call(client, {
      name: 'pick_stack',
      arguments: {},
      inputResponses: { [askId]: accept({ db: 'SQLite' }) },
      requestState: result.requestState,
    })
    expect((done as InputRequiredShape).resultType).toBe('input_required')
    const [record] = await seam.history({ askId })
    expect(record?.outcome?.by).toEqual([{ id: 'name:review\ufffdbot', via: 'mcp' }])
  })

  it('puts every ask the handler waits on in one InputRequiredResult, and asks again only for the one left out', async () => {
    const { client: connect } = await setUp()
    const client = await connect()
    const first = (await call(client, { name: 'pick_both', arguments: {} })) as InputRequiredShape
    const keys = Object.keys(first.inputRequests)
    expect(keys).toHaveLength(2)
    const fields = keys.map((key) =>
      Object.keys(first.inputRequests[key]?.params.requestedSchema.properties ?? {}).at(0),
    )
    expect([...fields].sort()).toEqual(['cache', 'db'])
    const dbKey = keys[fields.indexOf('db')] as string
    const cacheKey = keys.find((key) => key !== dbKey) as string
    const second = (await call(client, {
      name: 'pick_both',
      arguments: {},
      inputResponses: { [dbKey]: accept({ db: 'Postgres' }) },
      requestState: first.requestState,
    })) as InputRequiredShape
    expect(Object.keys(second.inputRequests)).toEqual([cacheKey])
    const done = await call(client, {
      name: 'pick_both',
      arguments: {},
      inputResponses: { [cacheKey]: accept({ cache: 'None' }) },
      requestState: second.requestState,
    })
    expect(textOf(done)).toBe('Postgres + None')
  })

  it('replays a retry that was already committed: the stored outcome, never a second answer', async () => {
    const { client: connect } = await setUp()
    const client = await connect()
    const { result, askId } = await firstRound(client)
    const retry = (db: string) =>
      call(client, {
        name: 'pick_stack',
        arguments: {},
        inputResponses: { [askId]: accept({ db }) },
        requestState: result.requestState,
      }) as Promise<InputRequiredShape>
    const first = await retry('SQLite')
    const replayed = await retry('Postgres')
    expect(Object.keys(replayed.inputRequests)).toEqual(Object.keys(first.inputRequests))
    const [cacheAsk] = Object.keys(first.inputRequests)
    const done = await call(client, {
      name: 'pick_stack',
      arguments: {},
      inputResponses: { [cacheAsk as string]: accept({ cache: 'None' }) },
      requestState: replayed.requestState,
    })
    expect(textOf(done)).toBe('app: SQLite + None')
  })

  it.each([
    [
      'edited by one byte',
      (state: string) => `${state.slice(0, 10)}${state[10] === 'A' ? 'B' : 'A'}${state.slice(11)}`,
    ],
    ['garbage', () => 'not-a-state'],
  ])('refuses a requestState %s with a JSON-RPC error and changes nothing', async (_, edit) => {
    const { store, client: connect } = await setUp()
    const client = await connect()
    const { result, askId } = await firstRound(client)
    await expect(
      call(client, {
        name: 'pick_stack',
        arguments: {},
        inputResponses: { [askId]: accept({ db: 'SQLite' }) },
        requestState: edit(result.requestState),
      }),
    ).rejects.toMatchObject({
      code: -32602,
      data: { code: 'INVALID_REQUEST', details: { field: 'requestState' } },
    })
    await stillPending(store, askId)
  })

  it("refuses another tool call's requestState", async () => {
    const { store, client: connect } = await setUp()
    const client = await connect()
    const { result, askId } = await firstRound(client, { project: 'shop' })
    await expect(
      call(client, {
        name: 'pick_stack',
        arguments: { project: 'blog' },
        inputResponses: { [askId]: accept({ db: 'SQLite' }) },
        requestState: result.requestState,
      }),
    ).rejects.toMatchObject({
      code: -32602,
      data: { code: 'INVALID_REQUEST', details: { field: 'requestState', reason: 'binding' } },
    })
    await stillPending(store, askId)
  })

  it("refuses another client's requestState", async () => {
    const { store, client: connect } = await setUp()
    const { result, askId } = await firstRound(await connect('desk-one'))
    await expect(
      call(await connect('desk-two'), {
        name: 'pick_stack',
        arguments: {},
        inputResponses: { [askId]: accept({ db: 'SQLite' }) },
        requestState: result.requestState,
      }),
    ).rejects.toMatchObject({
      code: -32602,
      data: { code: 'INVALID_REQUEST', details: { field: 'requestState', reason: 'binding' } },
    })
    await stillPending(store, askId)
  })

  it('refuses an expired requestState', async () => {
    const { store, client: connect } = await setUp({ stateTtlMs: 50 })
    const client = await connect()
    const { result, askId } = await firstRound(client)
    const body = JSON.parse(
      Buffer.from(result.requestState.split('.')[0] as string, 'base64url').toString(),
    ) as { exp: number }
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(body.exp), { timeout: 5_000 })
    await expect(
      call(client, {
        name: 'pick_stack',
        arguments: {},
        inputResponses: { [askId]: accept({ db: 'SQLite' }) },
        requestState: result.requestState,
      }),
    ).rejects.toMatchObject({
      code: -32602,
      data: { code: 'INVALID_REQUEST', details: { field: 'requestState', reason: 'expired' } },
    })
    await stillPending(store, askId)
  })

  it('asks again when inputResponses leaves a request out', async () => {
    const { store, client: connect } = await setUp()
    const client = await connect()
    const { result, askId } = await firstRound(client)
    const again = (await call(client, {
      name: 'pick_stack',
      arguments: {},
      inputResponses: {},
      requestState: result.requestState,
    })) as InputRequiredShape
    expect(Object.keys(again.inputRequests)).toEqual([askId])
    await stillPending(store, askId)
  })

  it('refuses inputResponses with a key the requestState does not name', async () => {
    const { store, client: connect } = await setUp()
    const client = await connect()
    const { result, askId } = await firstRound(client)
    await expect(
      call(client, {
        name: 'pick_stack',
        arguments: {},
        inputResponses: { [askId]: accept({ db: 'SQLite' }), smuggled: accept({ db: 'Postgres' }) },
        requestState: result.requestState,
      }),
    ).rejects.toMatchObject({
      code: -32602,
      data: { code: 'INVALID_REQUEST', details: { field: 'inputResponses', key: 'smuggled' } },
    })
    await stillPending(store, askId)
  })

  it('ends the ask BAD_ANSWER for a form that does not fit, as today', async () => {
    const { store, client: connect } = await setUp()
    const client = await connect()
    const { result, askId } = await firstRound(client)
    const answered = await call(client, {
      name: 'pick_stack',
      arguments: {},
      inputResponses: { [askId]: accept({ db: 'Oracle' }) },
      requestState: result.requestState,
    })
    expect(answered).toMatchObject({ isError: true })
    expect(textOf(answered)).toMatch(/^BAD_ANSWER: /)
    expect(await store.get(askId)).toMatchObject({
      state: 'settled',
      outcome: {
        status: 'rejected',
        error: { code: 'BAD_ANSWER', details: { rule: 'unknown-label' } },
      },
    })
  })

  it.each([
    ['a string', 'yes'],
    ['null', null],
    ['a number', 42],
    ['a list', []],
    ['a wrapped result', { method: 'elicitation/create', result: accept({ db: 'SQLite' }) }],
  ])(
    'ends the ask BAD_ANSWER for an inputResponses value that is no result (%s), leaving nothing waiting',
    async (_, value) => {
      const { store, seam, client: connect } = await setUp()
      const client = await connect()
      const { result, askId } = await firstRound(client)
      const answered = await call(client, {
        name: 'pick_stack',
        arguments: {},
        inputResponses: { [askId]: value },
        requestState: result.requestState,
      })
      expect(answered).toMatchObject({ isError: true })
      expect(textOf(answered)).toMatch(/^BAD_ANSWER: .*elicitation result object itself/)
      expect(await store.get(askId)).toMatchObject({
        state: 'settled',
        outcome: {
          status: 'rejected',
          error: { code: 'BAD_ANSWER', details: { rule: 'result-shape' } },
        },
      })
      expect(seam.pending()).toEqual([])
    },
  )

  it('commits an answer the retry brings even when the handler does not reach its ask this round', async () => {
    const { store, client: connect } = await setUp()
    const client = await connect()
    const first = (await call(client, { name: 'detour', arguments: {} })) as InputRequiredShape
    const [dbAsk] = Object.keys(first.inputRequests) as [string]
    const second = (await call(client, {
      name: 'detour',
      arguments: {},
      inputResponses: { [dbAsk]: accept({ db: 'SQLite' }) },
      requestState: first.requestState,
    })) as InputRequiredShape
    expect(Object.keys(second.inputRequests)).not.toContain(dbAsk)
    expect(await store.get(dbAsk)).toMatchObject({
      state: 'settled',
      outcome: { status: 'answered', answer: { answers: [{ id: 'db', selected: ['SQLite'] }] } },
    })
  })

  it('ends the ask ASK_CANCELLED when the user declines', async () => {
    const { store, client: connect } = await setUp()
    const client = await connect()
    const { result, askId } = await firstRound(client)
    const answered = await call(client, {
      name: 'pick_stack',
      arguments: {},
      inputResponses: { [askId]: { action: 'decline' } },
      requestState: result.requestState,
    })
    expect(textOf(answered)).toMatch(/^ASK_CANCELLED: /)
    expect(await store.get(askId)).toMatchObject({
      outcome: { error: { code: 'ASK_CANCELLED', details: { action: 'decline' } } },
    })
  })

  it("answers ASK_TIMEOUT to a retry that arrives after the ask's deadline", async () => {
    const { store, client: connect } = await setUp({ timeoutMs: 200 })
    const client = await connect()
    const { result, askId } = await firstRound(client)
    await vi.waitFor(async () => expect((await store.get(askId))?.state).toBe('settled'), {
      timeout: 5_000,
    })
    const answered = await call(client, {
      name: 'pick_stack',
      arguments: {},
      inputResponses: { [askId]: accept({ db: 'SQLite' }) },
      requestState: result.requestState,
    })
    expect(textOf(answered)).toMatch(/^ASK_TIMEOUT: /)
    expect(await store.get(askId)).toMatchObject({
      outcome: { status: 'rejected', error: { code: 'ASK_TIMEOUT' } },
    })
  })

  it('tells a handler that asks other questions when its call runs again so, without naming a key it never chose', async () => {
    const { store, client: connect } = await setUp()
    const client = await connect()
    const first = (await call(client, { name: 'fickle', arguments: {} })) as InputRequiredShape
    const [askId] = Object.keys(first.inputRequests)
    const retried = await call(client, {
      name: 'fickle',
      arguments: {},
      inputResponses: { [askId as string]: accept({ db: 'SQLite' }) },
      requestState: first.requestState,
    })
    expect(retried).toMatchObject({ isError: true })
    expect(textOf(retried)).toContain(
      'INVALID_REQUEST: this tool call asked other questions than on its earlier run',
    )
    expect(textOf(retried)).not.toContain('key')
    // The human's answer to what was asked first is kept.
    expect((await store.get(askId as string))?.outcome).toMatchObject({ status: 'answered' })
  })

  it('leaves the error about a key alone when the handler chose the key itself', async () => {
    const { client: connect } = await setUp()
    const client = await connect()
    const args = { key: 'fickle:choice' }
    const first = (await call(client, { name: 'fickle', arguments: args })) as InputRequiredShape
    const [askId] = Object.keys(first.inputRequests)
    const retried = await call(client, {
      name: 'fickle',
      arguments: args,
      inputResponses: { [askId as string]: accept({ db: 'SQLite' }) },
      requestState: first.requestState,
    })
    expect(textOf(retried)).toContain(
      'INVALID_REQUEST: this key belongs to an ask with other questions',
    )
  })

  it('reports a handler that fails as an isError result with its message', async () => {
    const { client: connect } = await setUp()
    const answered = await call(await connect(), { name: 'broken', arguments: {} })
    expect(answered).toMatchObject({ isError: true })
    expect(textOf(answered)).toBe('The tool failed: the deploy API is down')
  })

  it('refuses a tool it does not serve with a JSON-RPC error', async () => {
    const { client: connect } = await setUp()
    await expect(call(await connect(), { name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'INVALID_REQUEST', details: { field: 'name' } },
    })
  })

  it('sends no inputRequests to a client without elicitation: the ask fails PROVIDER_FAILED, as today', async () => {
    const { client: connect } = await setUp()
    const client = await connect('no-forms', {})
    const answered = await call(client, { name: 'pick_stack', arguments: {} })
    expect(answered).toMatchObject({ isError: true })
    expect(answered).not.toHaveProperty('inputRequests')
    expect(textOf(answered)).toMatch(/^PROVIDER_FAILED: .*elicitation/)
  })
})
