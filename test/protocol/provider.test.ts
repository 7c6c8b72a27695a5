import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestionErrorCode,
  UserQuestionProvider,
} from '../../src/protocol/index.js'
import { seamWithProvider, rejectionOf, skipAll, track } from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'

const questions: AskUserQuestionItem[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
  {
    id: 'features',
    question: 'Which features?',
    multiSelect: true,
    options: [{ label: 'Auth' }, { label: 'Billing' }],
  },
  { id: 'name', question: 'Project name?' },
]

/** A fresh copy each time, so no test can leak a mutation into another. */
function batch(): AskUserQuestionItem[] {
  return structuredClone(questions)
}

/** Collects unhandled rejections while `run` executes and one event-loop turn after it. */
async function unhandledDuring(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = []
  const listener = (reason: unknown) => {
    seen.push(reason)
  }
  process.on('unhandledRejection', listener)
  try {
    await run()
    vi.useRealTimers()
    // Node reports unhandled rejections after the microtask queue drains; the
    // real event-loop turns of settle() are enough for any to surface.
    await settle()
  } finally {
    process.off('unhandledRejection', listener)
  }
  return seen
}

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  vi.useRealTimers()
})

describe('a provider that fails', () => {
  it('throws synchronously: PROVIDER_FAILED with the throwable as cause', async () => {
    const seam = createUserQuestions()
    const thrown = new Error('renderer crashed')
    seam.registerProvider({
      ask() {
        throw thrown
      },
    })
    const error = await rejectionOf(seam.ask({ questions: batch() }), 'PROVIDER_FAILED')
    expect(error.cause).toBe(thrown)
    expect(error.message).toContain('renderer crashed')
    expect(seam.pending()).toEqual([])
  })

  it('returns something that is not a promise: PROVIDER_FAILED', async () => {
    const seam = createUserQuestions()
    const provider = { ask: () => skipAll(questions) } as unknown as UserQuestionProvider
    seam.registerProvider(provider)
    const error = await rejectionOf(seam.ask({ questions: batch() }), 'PROVIDER_FAILED')
    expect(error.message).toContain('promise')
    expect(error.details).toMatchObject({ rule: 'returns-promise' })
  })

  it('rejects with a plain Error: PROVIDER_FAILED, cause kept', async () => {
    const { seam, provider } = seamWithProvider()
    const asking = seam.ask({ questions: batch() })
    const failure = new Error('socket closed')
    ;(await provider.call(0)).reject(failure)
    const error = await rejectionOf(asking, 'PROVIDER_FAILED')
    expect(error.cause).toBe(failure)
    expect(error.message).toContain('socket closed')
  })

  it('rejects with something that is not an Error: PROVIDER_FAILED, cause kept', async () => {
    const { seam, provider } = seamWithProvider()
    const asking = seam.ask({ questions: batch() })
    ;(await provider.call(0)).reject('nope')
    const error = await rejectionOf(asking, 'PROVIDER_FAILED')
    expect(error.cause).toBe('nope')
  })

  it.each<UserQuestionErrorCode>([
    'ASK_CANCELLED',
    'ASK_TIMEOUT',
    'ASK_ABORTED',
    'BAD_ANSWER',
    'NO_PROVIDER',
    'SEAM_CLOSED',
  ])(
    'rejects with a UserQuestionError %s: the caller gets that very error, cause kept',
    async (code) => {
      const { seam, provider } = seamWithProvider()
      const asking = seam.ask({ questions: batch() })
      const root = new Error('the UI’s own reason')
      const thrown = new UserQuestionError(`the UI says ${code}`, code, {
        details: { by: 'ui' },
        cause: root,
      })
      ;(await provider.call(0)).reject(thrown)
      const error = await rejectionOf(asking, code)
      expect(error.message).toBe(`the UI says ${code}`)
      expect(error.details).toEqual({ by: 'ui' })
      // BAD_ANSWER is also told back to the provider as its verdict: that must not make a copy.
      expect(error).toBe(thrown)
      expect(error.cause).toBe(root)
    },
  )

  it('does not abort its own signal when it rejects', async () => {
    const { seam, provider } = seamWithProvider()
    const asking = seam.ask({ questions: batch() })
    const call = await provider.call(0)
    call.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
    await rejectionOf(asking, 'ASK_CANCELLED')
    expect(call.request.signal.aborted).toBe(false)
  })
})

describe('a provider that answers wrongly: BAD_ANSWER naming the question and the rule', () => {
  const rest = [
    { id: 'features', selected: [] },
    { id: 'name', selected: [] },
  ]
  const cases: Array<[string, unknown, string, string]> = [
    [
      'an unknown id',
      { answers: [{ id: 'db', selected: [] }, ...rest, { id: 'region', selected: [] }] },
      'region',
      'unknown-id',
    ],
    ['a missing id', { answers: rest }, 'db', 'missing-answer'],
    [
      'a label that is not an option',
      { answers: [{ id: 'db', selected: ['MySQL'] }, ...rest] },
      'db',
      'unknown-label',
    ],
    [
      'two labels on a single-select question',
      { answers: [{ id: 'db', selected: ['Postgres', 'SQLite'] }, ...rest] },
      'db',
      'single-select',
    ],
    [
      'custom beside selected on a single-select question',
      { answers: [{ id: 'db', selected: ['SQLite'], custom: 'MariaDB' }, ...rest] },
      'db',
      'custom-with-selection',
    ],
    [
      'a blank custom',
      {
        answers: [
          { id: 'db', selected: [] },
          { id: 'features', selected: [] },
          { id: 'name', selected: [], custom: '  ' },
        ],
      },
      'name',
      'blank-custom',
    ],
    [
      'a repeated label',
      {
        answers: [
          { id: 'db', selected: [] },
          { id: 'features', selected: ['Billing', 'Billing'] },
          { id: 'name', selected: [] },
        ],
      },
      'features',
      'repeated-label',
    ],
  ]

  it.each(cases)('%s', async (_name, answer, questionId, rule) => {
    const { seam, provider } = seamWithProvider()
    const asking = seam.ask({ questions: batch() })
    const call = await provider.call(0)
    call.resolve(answer)
    const error = await rejectionOf(asking, 'BAD_ANSWER')
    expect(error.details).toEqual({ questionId, rule })
    expect(error.message).toContain(`"${questionId}"`)
    expect(call.request.signal.aborted).toBe(false)
    expect(seam.pending()).toEqual([])
  })

  it('an answer that is not an answer object at all', async () => {
    const { seam, provider } = seamWithProvider()
    const asking = seam.ask({ questions: batch() })
    ;(await provider.call(0)).resolve('Postgres')
    const error = await rejectionOf(asking, 'BAD_ANSWER')
    expect(error.details).toMatchObject({ rule: 'shape' })
  })
})

describe('a provider that mutates its request', () => {
  it('cannot widen what counts as a valid answer', async () => {
    const { seam, provider } = seamWithProvider()
    const asking = seam.ask({ questions: batch() })
    const call = await provider.call(0)
    try {
      call.request.questions[0]!.options!.push({ label: 'MySQL' })
      call.request.questions[1]!.multiSelect = false
    } catch {
      // Frozen questions are a fine way to keep them intact.
    }
    expect(seam.pending()[0]?.questions).toEqual(questions)
    call.resolve({
      answers: [
        { id: 'db', selected: ['MySQL'] },
        { id: 'features', selected: [] },
        { id: 'name', selected: [] },
      ],
    })
    const error = await rejectionOf(asking, 'BAD_ANSWER')
    expect(error.details).toEqual({ questionId: 'db', rule: 'unknown-label' })
  })
})

describe('a provider that settles late or never', () => {
  it('never settles: the deadline ends the ask with ASK_TIMEOUT and aborts its signal with that error', async () => {
    const { seam, provider } = seamWithProvider({ timeoutMs: 5_000 })
    const asking = track(seam.ask({ questions: batch() }))
    const call = await provider.call(0)
    await vi.advanceTimersByTimeAsync(4_999)
    expect(asking.settlement.status).toBe('pending')
    expect(call.request.signal.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const error = await rejectionOf(
      asking.done.then(() => seamResult(asking)),
      'ASK_TIMEOUT',
    )
    expect(call.request.signal.aborted).toBe(true)
    expect(call.request.signal.reason).toBe(error)
    expect(seam.pending()).toEqual([])
  })

  it('answers after the deadline: ignored, the ask stays ASK_TIMEOUT, no unhandled rejection', async () => {
    const { seam, provider } = seamWithProvider({ timeoutMs: 1_000 })
    let asking!: ReturnType<typeof track<AskUserQuestionAnswer>>
    const unhandled = await unhandledDuring(async () => {
      asking = track(seam.ask({ questions: batch() }))
      const call = await provider.call(0)
      await vi.advanceTimersByTimeAsync(1_000)
      call.resolve(skipAll(questions))
      await settle()
    })
    expect(unhandled).toEqual([])
    expect(asking.count).toBe(1)
    await rejectionOf(seamResult(asking), 'ASK_TIMEOUT')
  })

  it.each([
    ['a plain Error', () => new Error('late failure')],
    ['a UserQuestionError', () => new UserQuestionError('late dismissal', 'ASK_CANCELLED')],
    ['a bad answer', () => undefined],
  ])(
    'rejects or misanswers with %s after the ask ended: ignored, no unhandled rejection',
    async (_name, make) => {
      const { seam, provider } = seamWithProvider()
      const controller = new AbortController()
      let asking!: ReturnType<typeof track<AskUserQuestionAnswer>>
      const unhandled = await unhandledDuring(async () => {
        asking = track(seam.ask({ questions: batch(), signal: controller.signal }))
        const call = await provider.call(0)
        controller.abort(new Error('tool call cancelled'))
        await settle()
        const late = make()
        if (late === undefined) call.resolve({ answers: [{ id: 'nope', selected: ['x'] }] })
        else call.reject(late)
        await settle()
      })
      expect(unhandled).toEqual([])
      expect(asking.count).toBe(1)
      await rejectionOf(seamResult(asking), 'ASK_ABORTED')
    },
  )

  it('settles after close(): ignored, the ask stays SEAM_CLOSED', async () => {
    const { seam, provider } = seamWithProvider()
    let asking!: ReturnType<typeof track<AskUserQuestionAnswer>>
    const unhandled = await unhandledDuring(async () => {
      asking = track(seam.ask({ questions: batch() }))
      const call = await provider.call(0)
      await seam.close()
      call.reject(new Error('after close'))
      await settle()
    })
    expect(unhandled).toEqual([])
    await rejectionOf(seamResult(asking), 'SEAM_CLOSED')
  })
})

/** Turns a tracked settlement back into a promise for {@link rejectionOf}. */
function seamResult<T>(tracked: ReturnType<typeof track<T>>): Promise<T> {
  const settlement = tracked.settlement
  if (settlement.status === 'fulfilled') return Promise.resolve(settlement.value)
  if (settlement.status === 'rejected') return Promise.reject(settlement.reason)
  return Promise.reject(new Error('the ask has not settled'))
}
