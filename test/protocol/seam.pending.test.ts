import { describe, expect, it, vi } from 'vitest'
import {
  UserQuestionError,
  createAgentRegistry,
  createUserQuestions,
} from '../../src/protocol/index.js'
import {
  choice,
  createControllableProvider,
  seamWithProvider,
  rejectionOf,
  skipAll,
  track,
} from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'
import { START, batch, useFakeClock } from './seam-fixtures.js'

/** DESIGN §4 and §5: what pending() lists, the questions a provider is given, the answers a caller gets. */

useFakeClock()

describe('§5 answers', () => {
  it('come back canonical: question order, option order in a multi-select', async () => {
    const { seam, provider } = seamWithProvider()
    const asking = seam.ask({ questions: batch() })
    ;(await provider.call(0)).resolve({
      answers: [
        { id: 'features', selected: ['Search', 'Auth'], custom: 'SSO', extra: true },
        { id: 'db', selected: [], custom: 'MariaDB' },
      ],
    })
    const answer = await asking
    expect(answer).toEqual({
      answers: [
        { id: 'db', selected: [], custom: 'MariaDB' },
        { id: 'features', selected: ['Auth', 'Search'], custom: 'SSO' },
      ],
    })
    expect(JSON.stringify(answer.answers.map((item) => Object.keys(item)))).toBe(
      JSON.stringify([
        ['id', 'selected', 'custom'],
        ['id', 'selected', 'custom'],
      ]),
    )
  })
})

describe('§4 pending()', () => {
  it('lists { askId, questions, agentId?, state, startedAt, deadline? } oldest first and drops settled asks', async () => {
    const agents = createAgentRegistry()
    const root = { id: 'root-agent' }
    agents.enter(root)
    const seam = createUserQuestions({ agents, waitForProviderMs: 60_000 })
    expect(seam.pending()).toEqual([])

    const first = track(seam.ask({ questions: [choice('a')], timeoutMs: 10_000 }))
    await vi.advanceTimersByTimeAsync(250)
    const second = track(seam.ask({ questions: [choice('b')], agent: root }))
    const listed = seam.pending()
    expect(listed).toEqual([
      {
        askId: expect.any(String),
        questions: [choice('a')],
        state: 'waiting-for-provider',
        startedAt: START,
        deadline: START + 10_000,
      },
      {
        askId: expect.any(String),
        questions: [choice('b')],
        agentId: 'root-agent',
        state: 'waiting-for-provider',
        startedAt: START + 250,
      },
    ])
    expect(listed[0]?.askId).not.toBe(listed[1]?.askId)

    const provider = createControllableProvider()
    seam.registerProvider(provider)
    await settle()
    expect(seam.pending().map((entry) => entry.state)).toEqual(['presenting', 'presenting'])
    expect(provider.calls.map((call) => call.request.askId)).toEqual(
      listed.map((entry) => entry.askId),
    )

    provider.calls[0]?.resolve(skipAll([choice('a')]))
    await first.done
    expect(seam.pending().map((entry) => entry.askId)).toEqual([listed[1]?.askId])
    provider.calls[1]?.reject(new UserQuestionError('no', 'ASK_CANCELLED'))
    await second.done
    expect(seam.pending()).toEqual([])
  })

  it('mints a distinct askId per ask', async () => {
    const seam = createUserQuestions()
    seam.registerProvider(createControllableProvider())
    for (let index = 0; index < 5; index += 1) void track(seam.ask({ questions: batch() }))
    expect(new Set(seam.pending().map((entry) => entry.askId)).size).toBe(5)
    await seam.close()
  })
})

describe('§4 the questions a provider is given', () => {
  it('are a copy: mutating the caller’s request after ask() changes nothing', async () => {
    const { seam, provider } = seamWithProvider()
    const questions = batch()
    const asking = seam.ask({ questions })
    const call = await provider.call(0)
    questions[0]!.question = 'changed'
    questions[0]!.options!.push({ label: 'MySQL' })
    questions[1]!.multiSelect = false
    questions.push(choice('late'))
    expect(call.request.questions).toEqual(batch())
    expect(seam.pending()[0]?.questions).toEqual(batch())
    call.resolve({
      answers: [
        { id: 'db', selected: ['MySQL'] },
        { id: 'features', selected: [] },
      ],
    })
    const error = await rejectionOf(asking, 'BAD_ANSWER')
    expect(error.details).toEqual({ questionId: 'db', rule: 'unknown-label' })
  })

  it('keep a multi-select answer valid after the caller flips multiSelect', async () => {
    const { seam, provider } = seamWithProvider()
    const questions = batch()
    const asking = seam.ask({ questions })
    questions[1]!.multiSelect = false
    ;(await provider.call(0)).resolve({
      answers: [
        { id: 'db', selected: [] },
        { id: 'features', selected: ['Auth', 'Billing'] },
      ],
    })
    await expect(asking).resolves.toMatchObject({
      answers: [{ id: 'db' }, { id: 'features', selected: ['Auth', 'Billing'] }],
    })
  })
})

describe('§4 what pending() returns', () => {
  it('cannot change the ask: the next provider sees the questions as asked', async () => {
    const seam = createUserQuestions({ providerGraceMs: 1_000 })
    const dispose = seam.registerProvider(createControllableProvider())
    const asking = seam.ask({ questions: batch() })
    const listed = seam.pending()[0]?.questions ?? []
    try {
      listed[0]!.question = 'changed'
      listed[0]!.options!.push({ label: 'MySQL' })
    } catch {
      // Frozen questions are a fine way to keep them intact.
    }
    dispose()
    const next = createControllableProvider()
    seam.registerProvider(next)
    const call = await next.call(0)
    expect(call.request.questions).toEqual(batch())
    call.resolve({
      answers: [
        { id: 'db', selected: ['MySQL'] },
        { id: 'features', selected: [] },
      ],
    })
    await rejectionOf(asking, 'BAD_ANSWER')
  })
})
