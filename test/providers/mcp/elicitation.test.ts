import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  deploymentPlan,
  deploymentQuestions,
  planReviewQuestion,
} from '../../../src/cli/scenario.js'
import { UserQuestionError } from '../../../src/protocol/index.js'
import { createElicitationProvider } from '../../../src/providers/mcp/index.js'
import type { AskUserQuestionItem } from '../../../src/protocol/index.js'
import { cancellationsFor, connectPair } from '../../support/mcp-pair.js'
import type { McpPair, McpPairOptions } from '../../support/mcp-pair.js'

const open: McpPair[] = []
async function pair(options: McpPairOptions = {}): Promise<McpPair> {
  const created = await connectPair(options)
  open.push(created)
  return created
}
afterEach(async () => {
  vi.useRealTimers()
  await Promise.all(open.splice(0).map((created) => created.close()))
})

async function rejection(promise: Promise<unknown>): Promise<UserQuestionError> {
  const error: unknown = await promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`)
    },
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(UserQuestionError)
  return error as UserQuestionError
}

const plan = planReviewQuestion(deploymentPlan('eu-west-1', ['Smoke tests']))

describe('the elicitation request', () => {
  it('carries every question, header, detail and option in the message, one property per question, nothing required', async () => {
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions })
    const incoming = await inbox.next()
    const { message, requestedSchema } = incoming.params
    for (const question of deploymentQuestions) {
      expect(message).toContain(question.question)
      expect(message).toContain(question.header as string)
      if (question.detail !== undefined) expect(message).toContain(question.detail)
      for (const option of question.options ?? []) {
        expect(message).toContain(option.label)
        expect(message).toContain(option.description as string)
      }
    }
    expect(requestedSchema.required).toBeUndefined()
    expect(Object.keys(requestedSchema.properties)).toEqual([
      'region',
      'region_other',
      'checks',
      'checks_other',
      'announce',
    ])
    expect(requestedSchema.properties.region).toEqual({
      type: 'string',
      title: 'Target: Which region should the service be deployed to?',
      description: deploymentQuestions[0]?.detail,
      oneOf: [
        {
          const: 'eu-west-1 (Recommended)',
          title: 'eu-west-1 (Recommended) — Next to the database replica',
        },
        { const: 'us-east-1', title: 'us-east-1 — Closest to most current users' },
        {
          const: 'ap-southeast-2',
          title: 'ap-southeast-2 — New market, no existing infrastructure',
        },
      ],
    })
    expect(requestedSchema.properties.checks).toMatchObject({
      type: 'array',
      items: {
        anyOf: [
          { const: 'Smoke tests' },
          { const: 'Database migration dry run' },
          { const: 'Load test' },
        ],
      },
    })
    expect(requestedSchema.properties.region_other).toMatchObject({ type: 'string' })
    expect(requestedSchema.properties.announce).toEqual({
      type: 'string',
      title: 'Release notes: Anything the release announcement should say?',
    })
    expect(incoming.params.mode).toBe('form')
    incoming.respond({ action: 'cancel' })
    await rejection(asked)
  })

  it('sends a plan review with the plan as the message body and the approving label first', async () => {
    const { seam, inbox } = await pair()
    const reversed: AskUserQuestionItem = {
      ...plan,
      options: [...(plan.options ?? [])].reverse(),
    }
    const asked = seam.ask({ questions: [reversed] })
    const { params, respond } = await inbox.next()
    expect(params.message.startsWith(plan.detail as string)).toBe(true)
    expect(params.message.indexOf('Approve')).toBeLessThan(params.message.indexOf('Revise'))
    const property = params.requestedSchema.properties.plan as { oneOf: Array<{ const: string }> }
    expect(property.oneOf.map((choice) => choice.const)).toEqual(['Approve', 'Revise'])
    respond({ action: 'accept', content: { plan: 'Approve' } })
    await expect(asked).resolves.toEqual({ answers: [{ id: 'plan', selected: ['Approve'] }] })
  })
})

describe('answers', () => {
  it('maps a single choice, several choices and typed text to the canonical answer', async () => {
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions })
    const { respond } = await inbox.next()
    respond({
      action: 'accept',
      content: {
        region: 'us-east-1',
        checks: ['Load test', 'Smoke tests'],
        announce: 'Faster checkout',
      },
    })
    await expect(asked).resolves.toEqual({
      answers: [
        { id: 'region', selected: ['us-east-1'] },
        { id: 'checks', selected: ['Smoke tests', 'Load test'] },
        { id: 'announce', selected: [], custom: 'Faster checkout' },
      ],
    })
  })

  it('lets typed text override a single-select choice and stand beside multi-select choices', async () => {
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions })
    const { respond } = await inbox.next()
    respond({
      action: 'accept',
      content: {
        region: 'us-east-1',
        region_other: 'eu-central-1',
        checks: ['Smoke tests'],
        checks_other: 'Canary for an hour',
      },
    })
    await expect(asked).resolves.toEqual({
      answers: [
        { id: 'region', selected: [], custom: 'eu-central-1' },
        { id: 'checks', selected: ['Smoke tests'], custom: 'Canary for an hour' },
        { id: 'announce', selected: [] },
      ],
    })
  })

  it('maps questions left out, blank text and an empty selection to skips', async () => {
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions })
    const { respond } = await inbox.next()
    respond({ action: 'accept', content: { region_other: '   ', checks: [], announce: '' } })
    await expect(asked).resolves.toEqual({
      answers: [
        { id: 'region', selected: [] },
        { id: 'checks', selected: [] },
        { id: 'announce', selected: [] },
      ],
    })
  })

  it('maps accept without content to a batch of skips', async () => {
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions.slice(0, 1) })
    ;(await inbox.next()).respond({ action: 'accept' })
    await expect(asked).resolves.toEqual({ answers: [{ id: 'region', selected: [] }] })
  })

  it('returns a refused plan review as the refusing label, or typed feedback', async () => {
    const { seam, inbox } = await pair()
    const refused = seam.ask({ questions: [plan] })
    ;(await inbox.next()).respond({ action: 'accept', content: { plan: 'Revise' } })
    await expect(refused).resolves.toEqual({ answers: [{ id: 'plan', selected: ['Revise'] }] })
    const discussed = seam.ask({ questions: [plan] })
    ;(await inbox.next()).respond({
      action: 'accept',
      content: { plan: 'Approve', plan_other: 'Skip step 3' },
    })
    await expect(discussed).resolves.toEqual({
      answers: [{ id: 'plan', selected: [], custom: 'Skip step 3' }],
    })
  })

  it.each(['decline', 'cancel'] as const)(
    'rejects ASK_CANCELLED when the client answers %s',
    async (action) => {
      const { seam, inbox } = await pair()
      const asked = seam.ask({ questions: deploymentQuestions })
      ;(await inbox.next()).respond({ action })
      const error = await rejection(asked)
      expect(error.code).toBe('ASK_CANCELLED')
      expect(error.details).toEqual({ action })
    },
  )
})

describe('answers that do not fit the form', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a label that is not an option', { region: 'mars-north-1' }, 'unknown-label'],
    ['a number where a label belongs', { region: 3 }, 'not-a-choice'],
    ['a number where text belongs', { announce: 42 }, 'not-text'],
    ['an unknown property', { region: 'us-east-1', colour: 'blue' }, 'unknown-property'],
    [
      'a multi-select label that is not an option',
      { checks: ['Smoke tests', 'Prayer'] },
      'unknown-label',
    ],
    ['a multi-select label chosen twice', { checks: ['Load test', 'Load test'] }, 'repeated-label'],
    ['a string where a list belongs', { checks: 'Load test' }, 'not-a-choice'],
  ]
  it.each(cases)('rejects BAD_ANSWER for %s', async (_, content, rule) => {
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions })
    ;(await inbox.next()).respond({ action: 'accept', content: content as never })
    const error = await rejection(asked)
    expect(error.code).toBe('BAD_ANSWER')
    expect(error.details).toMatchObject({ rule })
  })
})

describe('taking a question down', () => {
  it('cancels the request when the caller aborts, on a fresh connection, and the client hears it', async () => {
    const { seam, inbox, received } = await pair()
    const controller = new AbortController()
    const asked = seam.ask({ questions: deploymentQuestions, signal: controller.signal })
    const incoming = await inbox.next()
    // The first request of a connection: a TypeScript SDK receiver would drop a cancel for id 0.
    expect(incoming.requestId).not.toBe(0)
    controller.abort()
    const error = await rejection(asked)
    expect(error.code).toBe('ASK_ABORTED')
    await incoming.cancelled
    expect(incoming.signal.aborted).toBe(true)
    expect(cancellationsFor(received, incoming.requestId)).toHaveLength(1)
  })

  it('cancels the request when the ask reaches its deadline', async () => {
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions, timeoutMs: 50 })
    const incoming = await inbox.next()
    const error = await rejection(asked)
    expect(error.code).toBe('ASK_TIMEOUT')
    await incoming.cancelled
  })

  it('cancels the request when the provider is disposed', async () => {
    const { seam, inbox, dispose } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions })
    const incoming = await inbox.next()
    dispose()
    const error = await rejection(asked)
    expect(error.code).toBe('ASK_ABORTED')
    expect(error.details).toMatchObject({ reason: 'provider-disposed' })
    await incoming.cancelled
  })

  it('cancels the request when the seam closes', async () => {
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions })
    const incoming = await inbox.next()
    await seam.close()
    expect((await rejection(asked)).code).toBe('SEAM_CLOSED')
    await incoming.cancelled
  })

  it('keeps concurrent asks apart, each with its own request', async () => {
    const { seam, inbox } = await pair()
    const first = seam.ask({ questions: deploymentQuestions.slice(0, 1) })
    const second = seam.ask({ questions: deploymentQuestions.slice(2) })
    const [one, two] = [await inbox.next(), await inbox.next()]
    expect(one.requestId).not.toBe(two.requestId)
    two.respond({ action: 'accept', content: { announce: 'second' } })
    one.respond({ action: 'accept', content: { region: 'us-east-1' } })
    await expect(second).resolves.toEqual({
      answers: [{ id: 'announce', selected: [], custom: 'second' }],
    })
    await expect(first).resolves.toEqual({ answers: [{ id: 'region', selected: ['us-east-1'] }] })
  })

  it('leaves an ask without a deadline pending far past the SDK 60-second default', async () => {
    vi.useFakeTimers()
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions.slice(0, 1) })
    const incoming = await inbox.next()
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000)
    expect(incoming.signal.aborted).toBe(false)
    expect(seam.pending()).toHaveLength(1)
    incoming.respond({ action: 'accept', content: { region: 'us-east-1' } })
    await expect(asked).resolves.toEqual({ answers: [{ id: 'region', selected: ['us-east-1'] }] })
  })

  it("sets the MCP request timeout from the ask's deadline, as a backstop to the seam's", async () => {
    vi.useFakeTimers()
    const { server, inbox } = await pair()
    const deadline = Date.now() + 5_000
    const direct = createElicitationProvider({ server })
    const asked = direct.ask({
      askId: 'ask-1',
      questions: deploymentQuestions,
      deadline,
      signal: new AbortController().signal,
    })
    const settled = rejection(asked)
    const incoming = await inbox.next()
    await vi.advanceTimersByTimeAsync(5_000)
    expect(incoming.signal.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1_000)
    const error = await settled
    expect(error.code).toBe('ASK_TIMEOUT')
    expect(error.details).toEqual({ reason: 'mcp-request-timeout' })
    await incoming.cancelled
  })

  it('ignores an answer that arrives after the request was cancelled, and goes on', async () => {
    const { seam, inbox, clientTransport } = await pair()
    const controller = new AbortController()
    const asked = seam.ask({ questions: deploymentQuestions, signal: controller.signal })
    const incoming = await inbox.next()
    controller.abort()
    expect((await rejection(asked)).code).toBe('ASK_ABORTED')
    await incoming.cancelled
    // The SDK client itself drops answers to cancelled requests, so send one on the wire.
    await clientTransport.send({
      jsonrpc: '2.0',
      id: incoming.requestId,
      result: { action: 'accept', content: { region: 'us-east-1' } },
    })
    const next = seam.ask({ questions: deploymentQuestions.slice(0, 1) })
    ;(await inbox.next()).respond({ action: 'accept', content: { region: 'ap-southeast-2' } })
    await expect(next).resolves.toEqual({
      answers: [{ id: 'region', selected: ['ap-southeast-2'] }],
    })
  })

  it('rejects the ask when the client disconnects mid-question, and serves the next client', async () => {
    const { seam, inbox, client, server } = await pair()
    const asked = seam.ask({ questions: deploymentQuestions })
    await inbox.next()
    await client.close()
    const error = await rejection(asked)
    expect(error.code).toBe('ASK_ABORTED')
    expect(error.details).toEqual({ reason: 'client-disconnected' })
    const notConnected = await rejection(seam.ask({ questions: deploymentQuestions }))
    expect(notConnected.details).toEqual({ reason: 'mcp-not-connected' })

    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js')
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js')
    const second = new Client(
      { name: 'second', version: '0' },
      { capabilities: { elicitation: {} } },
    )
    second.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept',
      content: { region: 'us-east-1' },
    }))
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    await second.connect(clientSide)
    await expect(seam.ask({ questions: deploymentQuestions.slice(0, 1) })).resolves.toEqual({
      answers: [{ id: 'region', selected: ['us-east-1'] }],
    })
    await second.close()
  })
})

describe('clients and servers', () => {
  it('refuses, before sending anything, when the client has no elicitation capability', async () => {
    const { seam, received } = await pair({ elicitation: false })
    const error = await rejection(seam.ask({ questions: deploymentQuestions }))
    expect(error.code).toBe('PROVIDER_FAILED')
    expect(error.details).toEqual({ reason: 'elicitation-unsupported' })
    expect(error.message).toMatch(/does not support form elicitation/)
    expect(received).toEqual([])
  })

  it('accepts a low-level Server as well as an McpServer', async () => {
    const { seam, inbox } = await pair({ lowLevel: true })
    const asked = seam.ask({ questions: deploymentQuestions.slice(0, 1) })
    ;(await inbox.next()).respond({ action: 'accept', content: { region: 'us-east-1' } })
    await expect(asked).resolves.toEqual({ answers: [{ id: 'region', selected: ['us-east-1'] }] })
  })

  it('sends enum + enumNames and one boolean per multi-select option to a 2025-06-18 client', async () => {
    const { seam, inbox, provider } = await pair({ protocolVersion: '2025-06-18' })
    expect(provider.protocolVersion).toBe('2025-06-18')
    expect(provider.dialect).toBe('legacy')
    const asked = seam.ask({ questions: deploymentQuestions })
    const { params, respond } = await inbox.next()
    expect(params.mode).toBeUndefined()
    const { properties } = params.requestedSchema
    expect(properties.region).toMatchObject({
      type: 'string',
      enum: ['eu-west-1 (Recommended)', 'us-east-1', 'ap-southeast-2'],
      enumNames: [
        'eu-west-1 (Recommended) — Next to the database replica',
        'us-east-1 — Closest to most current users',
        'ap-southeast-2 — New market, no existing infrastructure',
      ],
    })
    expect(properties.region).not.toHaveProperty('oneOf')
    expect(Object.keys(properties)).toEqual([
      'region',
      'region_other',
      'checks_1',
      'checks_2',
      'checks_3',
      'checks_other',
      'announce',
    ])
    expect(Object.values(properties).some((property) => property.type === 'array')).toBe(false)
    respond({
      action: 'accept',
      content: { region: 'us-east-1', checks_1: true, checks_2: false, checks_3: true },
    })
    await expect(asked).resolves.toEqual({
      answers: [
        { id: 'region', selected: ['us-east-1'] },
        { id: 'checks', selected: ['Smoke tests', 'Load test'] },
        { id: 'announce', selected: [] },
      ],
    })
  })

  it('rejects BAD_ANSWER when a 2025-06-18 client sends text for a boolean option', async () => {
    const { seam, inbox } = await pair({ protocolVersion: '2025-06-18' })
    const asked = seam.ask({ questions: deploymentQuestions })
    ;(await inbox.next()).respond({ action: 'accept', content: { checks_1: 'yes' } })
    expect((await rejection(asked)).details).toMatchObject({ rule: 'not-boolean' })
  })

  it('sends the 2025-06-18 form, which every version accepts, when it never saw the negotiation', async () => {
    const { server, inbox } = await pair()
    const late = createElicitationProvider({ server })
    expect(late.protocolVersion).toBeUndefined()
    expect(late.dialect).toBe('legacy')
    const asked = late.ask({
      askId: 'late-1',
      questions: deploymentQuestions.slice(1, 2),
      signal: new AbortController().signal,
    })
    const { params, respond } = await inbox.next()
    expect(Object.keys(params.requestedSchema.properties)).toEqual([
      'checks_1',
      'checks_2',
      'checks_3',
      'checks_other',
    ])
    respond({ action: 'accept', content: { checks_2: true } })
    await expect(asked).resolves.toEqual({
      answers: [{ id: 'checks', selected: ['Database migration dry run'] }],
      by: { id: 'askseam-test-client', name: 'askseam-test-client', via: 'mcp' },
    })
    expect(createElicitationProvider({ server, protocolVersion: '2025-11-25' }).dialect).toBe(
      'titled',
    )
  })

  it('refuses before initialize, when no client has connected yet', async () => {
    const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js')
    const lonely = createElicitationProvider({ server: new McpServer({ name: 'x', version: '0' }) })
    const error = await rejection(
      lonely.ask({
        askId: 'a',
        questions: deploymentQuestions,
        signal: new AbortController().signal,
      }),
    )
    expect(error.code).toBe('PROVIDER_FAILED')
    expect(error.details).toEqual({ reason: 'mcp-not-connected' })
  })

  it(`sends oneOf titles to a ${LATEST_PROTOCOL_VERSION} client`, async () => {
    const { provider } = await pair()
    expect(provider.protocolVersion).toBe(LATEST_PROTOCOL_VERSION)
    expect(provider.dialect).toBe('titled')
  })
})

describe('question ids and batch size', () => {
  it('maps ids that are not property names to safe keys and back', async () => {
    const questions: AskUserQuestionItem[] = [
      {
        id: 'which db?',
        question: 'Which database?',
        options: [{ label: 'Postgres' }, { label: 'SQLite' }],
      },
      { id: '__proto__', question: 'Prototype?' },
      { id: 'q1', question: 'Owns the generated name q1?' },
      {
        id: 'ünïcode.key',
        question: 'Unicode?',
        multiSelect: true,
        options: [{ label: 'a' }, { label: 'b' }],
      },
      { id: 'x'.repeat(80), question: 'Very long id?' },
    ]
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions })
    const { params, respond } = await inbox.next()
    const keys = Object.keys(params.requestedSchema.properties)
    for (const key of keys) expect(key).toMatch(/^[A-Za-z_][A-Za-z0-9_-]*$/)
    expect(keys).not.toContain('__proto__')
    expect(keys).toContain('q1')
    const [dbKey, protoKey, , unicodeKey, longKey] = keys.filter((key) => !key.endsWith('_other'))
    respond({
      action: 'accept',
      content: {
        [dbKey as string]: 'SQLite',
        [protoKey as string]: 'no',
        q1: 'yes',
        [unicodeKey as string]: ['b'],
        [longKey as string]: 'long',
      },
    })
    await expect(asked).resolves.toEqual({
      answers: [
        { id: 'which db?', selected: ['SQLite'] },
        { id: '__proto__', selected: [], custom: 'no' },
        { id: 'q1', selected: [], custom: 'yes' },
        { id: 'ünïcode.key', selected: ['b'] },
        { id: 'x'.repeat(80), selected: [], custom: 'long' },
      ],
    })
  })

  it('asks 20 questions in one request and maps every answer', async () => {
    const questions: AskUserQuestionItem[] = Array.from({ length: 20 }, (_, index) => ({
      id: `question-${index}`,
      header: `Part ${index}`,
      question: `Question number ${index}?`,
      ...(index % 3 === 2
        ? {}
        : { options: [{ label: `yes ${index}` }, { label: `no ${index}` }] }),
      ...(index % 3 === 1 ? { multiSelect: true } : {}),
    }))
    const { seam, inbox } = await pair()
    const asked = seam.ask({ questions })
    const { params, respond } = await inbox.next()
    for (const question of questions) expect(params.message).toContain(question.question)
    const content: Record<string, string | string[]> = {}
    for (const [index, question] of questions.entries()) {
      if (index % 3 === 0) content[question.id] = `no ${index}`
      if (index % 3 === 1) content[question.id] = [`yes ${index}`, `no ${index}`]
      if (index % 3 === 2) content[question.id] = `text ${index}`
    }
    respond({ action: 'accept', content })
    const { answers } = await asked
    expect(answers).toHaveLength(20)
    expect(answers[0]).toEqual({ id: 'question-0', selected: ['no 0'] })
    expect(answers[1]).toEqual({ id: 'question-1', selected: ['yes 1', 'no 1'] })
    expect(answers[2]).toEqual({ id: 'question-2', selected: [], custom: 'text 2' })
    expect(answers[19]).toEqual({ id: 'question-19', selected: ['yes 19', 'no 19'] })
  })
})
