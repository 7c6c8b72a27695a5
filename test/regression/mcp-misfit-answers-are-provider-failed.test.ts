import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { UserQuestionError } from '../../src/protocol/index.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import { connectPair } from '../support/mcp-pair.js'
import type { McpPair, McpPairOptions } from '../support/mcp-pair.js'

// Issue 10, item 7. A client answering accept with a null value (the Python
// SDK sends None as null for a cleared field), a nested object or a list of
// numbers failed the SDK's own result schema: PROVIDER_FAILED with forty
// lines of zod output. Late answers and shutdowns printed "protocol error"
// lines; the cancel reason read "UserQuestionError: …"; a 2025-03-26 client
// that declared the capability was sent a form anyway.
//
// The official TypeScript client checks its own results before sending, so
// it cannot send such an answer; the Python client does. Each test answers
// through the SDK client and rewrites the result on the wire, as a client
// that does not check would have sent it.

interface Wired {
  pair: McpPair
  /** Errors the server's `onerror` received, as a host would log them. */
  errors: string[]
  /** Sends `result` on the wire as the answer to `requestId`, whatever the SDK client would check. */
  answerRaw(requestId: RequestId, result: unknown): void
}

const open: McpPair[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()))
})

async function wired(options: McpPairOptions = {}): Promise<Wired> {
  const pair = await connectPair(options)
  open.push(pair)
  const errors: string[] = []
  const low = 'server' in pair.server ? pair.server.server : pair.server
  low.onerror = (error) => errors.push(error.message)
  const rewrites = new Map<RequestId, unknown>()
  const send = pair.clientTransport.send.bind(pair.clientTransport)
  pair.clientTransport.send = (message, sendOptions) => {
    const id = 'id' in message ? message.id : undefined
    if (id !== undefined && 'result' in message && rewrites.has(id)) {
      const result = rewrites.get(id)
      rewrites.delete(id)
      return send({ ...message, result } as JSONRPCMessage, sendOptions)
    }
    return send(message, sendOptions)
  }
  return {
    pair,
    errors,
    answerRaw(requestId, result) {
      rewrites.set(requestId, result)
      const incoming = pair.inbox.all.find((entry) => entry.requestId === requestId)
      incoming?.respond({ action: 'accept', content: {} })
    },
  }
}

const single: AskUserQuestionItem = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres' }, { label: 'SQLite' }],
}
const multi: AskUserQuestionItem = {
  id: 'checks',
  question: 'Which checks?',
  multiSelect: true,
  options: [{ label: 'Smoke' }, { label: 'Load' }],
}
const notes: AskUserQuestionItem = { id: 'notes', question: 'Anything else?' }

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => value,
    (error: unknown) => error,
  )
}

describe('answers that do not fit the form', () => {
  it('a null value is a skip, for a choice, typed text and a custom answer', async () => {
    const { pair, answerRaw } = await wired()
    const asked = pair.seam.ask({ questions: [single, notes] })
    const incoming = await pair.inbox.next()
    answerRaw(incoming.requestId, {
      action: 'accept',
      content: { db: null, db_other: null, notes: null },
    })
    await expect(asked).resolves.toEqual({
      answers: [
        { id: 'db', selected: [] },
        { id: 'notes', selected: [] },
      ],
    })
  })

  it('an empty string for an untouched single choice is a skip', async () => {
    const { pair, answerRaw } = await wired()
    const asked = pair.seam.ask({ questions: [single] })
    answerRaw((await pair.inbox.next()).requestId, { action: 'accept', content: { db: '' } })
    await expect(asked).resolves.toEqual({ answers: [{ id: 'db', selected: [] }] })
  })

  it('accept with null content is a batch of skips', async () => {
    const { pair, answerRaw } = await wired()
    const asked = pair.seam.ask({ questions: [single] })
    answerRaw((await pair.inbox.next()).requestId, { action: 'accept', content: null })
    await expect(asked).resolves.toEqual({ answers: [{ id: 'db', selected: [] }] })
  })

  it.each([
    ['a nested object for a single choice', [single], { db: { label: 'Postgres' } }, 'db'],
    ['a list of numbers for a multi-select', [multi], { checks: [1, 2] }, 'checks'],
    ['a number for typed text', [notes], { notes: 42 }, 'notes'],
    ['a nested object for a custom answer', [single], { db_other: { text: 'x' } }, 'db'],
  ])(
    '%s is BAD_ANSWER naming the question, not a schema dump',
    async (_name, questions, content, id) => {
      const { pair, answerRaw } = await wired()
      const asked = pair.seam.ask({ questions })
      answerRaw((await pair.inbox.next()).requestId, { action: 'accept', content })
      const error = await outcome(asked)
      expect(error).toBeInstanceOf(UserQuestionError)
      expect((error as UserQuestionError).code).toBe('BAD_ANSWER')
      expect((error as UserQuestionError).details).toMatchObject({ questionId: id })
      expect((error as UserQuestionError).message).toContain(`question "${id}"`)
      expect((error as UserQuestionError).message).not.toMatch(/invalid_union|"expected"/)
      expect((error as UserQuestionError).message.length).toBeLessThan(400)
    },
  )

  it('an action outside accept, decline and cancel is BAD_ANSWER', async () => {
    const { pair, answerRaw } = await wired()
    const asked = pair.seam.ask({ questions: [single] })
    answerRaw((await pair.inbox.next()).requestId, { action: 'maybe' })
    expect(await outcome(asked)).toMatchObject({
      code: 'BAD_ANSWER',
      details: { rule: 'unknown-action' },
    })
  })
})

describe('what reaches the host and the client', () => {
  it('an answer after the ask was taken down reaches no onerror; a stray response still does', async () => {
    const { pair, errors } = await wired()
    const controller = new AbortController()
    const asked = pair.seam.ask({ questions: [single], signal: controller.signal })
    const incoming = await pair.inbox.next()
    controller.abort()
    await incoming.cancelled
    expect(await outcome(asked)).toMatchObject({ code: 'ASK_ABORTED' })
    // The late answer, as a client that ignores the cancellation sends it.
    await pair.clientTransport.send({
      jsonrpc: '2.0',
      id: incoming.requestId,
      result: { action: 'accept', content: { db: 'Postgres' } },
    })
    await pair.clientTransport.send({ jsonrpc: '2.0', id: 987_654, result: {} })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('987654')
  })

  it('a shutdown with asks pending prints nothing to onerror', async () => {
    const { pair, errors } = await wired()
    const asked = outcome(pair.seam.ask({ questions: [single] }))
    await pair.inbox.next()
    await pair.client.close()
    await pair.server.close()
    await pair.seam.close()
    expect(await asked).toBeInstanceOf(UserQuestionError)
    expect(errors).toEqual([])
  })

  it('the reason on notifications/cancelled is a plain sentence', async () => {
    const { pair } = await wired()
    const controller = new AbortController()
    const asked = outcome(pair.seam.ask({ questions: [single], signal: controller.signal }))
    const incoming = await pair.inbox.next()
    controller.abort()
    const reason = await incoming.cancelled
    const error = (await asked) as UserQuestionError
    expect(String(reason)).not.toMatch(/^UserQuestionError/)
    expect(String(reason)).toBe(error.message)
    const cancellation = pair.received.find(
      (message) => 'method' in message && message.method === 'notifications/cancelled',
    )
    expect((cancellation as unknown as { params: { reason: string } }).params.reason).toBe(
      error.message,
    )
  })
})

describe('a client that negotiated a protocol before elicitation', () => {
  it('is sent no form, even though it declares the capability: PROVIDER_FAILED, elicitation-unsupported', async () => {
    const { pair } = await wired({ protocolVersion: '2025-03-26' })
    expect(pair.provider.protocolVersion).toBe('2025-03-26')
    const error = await outcome(pair.seam.ask({ questions: [single] }))
    expect(error).toMatchObject({
      code: 'PROVIDER_FAILED',
      details: { reason: 'elicitation-unsupported', protocolVersion: '2025-03-26' },
    })
    expect((error as UserQuestionError).message).toContain('2025-03-26')
    expect(pair.inbox.all).toHaveLength(0)
    expect(
      pair.received.filter(
        (message) => 'method' in message && message.method === 'elicitation/create',
      ),
    ).toHaveLength(0)
  })

  it('a 2025-06-18 client is still asked', async () => {
    const { pair } = await wired({ protocolVersion: '2025-06-18' })
    const asked = pair.seam.ask({ questions: [single] })
    const incoming = await pair.inbox.next()
    incoming.respond({ action: 'accept', content: { db: 'SQLite' } })
    await expect(asked).resolves.toEqual({ answers: [{ id: 'db', selected: ['SQLite'] }] })
  })
})
