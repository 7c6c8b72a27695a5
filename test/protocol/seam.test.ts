import { getEventListeners } from 'node:events'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  UserQuestionError,
  createAgentRegistry,
  createUserQuestions,
} from '../../src/protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestionProvider,
  UserQuestions,
} from '../../src/protocol/index.js'
import {
  choice,
  createControllableProvider,
  seamWithProvider,
  rejectionOf,
  skipAll,
  thrownBy,
  track,
} from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'

const START = Date.UTC(2026, 0, 1)

const batch = (): AskUserQuestionItem[] => [
  choice('db', ['Postgres', 'SQLite']),
  {
    id: 'features',
    question: 'Which features?',
    multiSelect: true,
    options: [{ label: 'Auth' }, { label: 'Billing' }, { label: 'Search' }],
  },
]

/** How many abort listeners are registered on `signal` right now. */
const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length

/** Wraps a signal's add/removeEventListener so a test sees that the seam listened, and let go. */
function countingSignal(signal: AbortSignal): { added: number; removed: number } {
  const counts = { added: 0, removed: 0 }
  const add = signal.addEventListener.bind(signal)
  const remove = signal.removeEventListener.bind(signal)
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    if (args[0] === 'abort') counts.added += 1
    add(...args)
  }) as typeof signal.addEventListener
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    if (args[0] === 'abort') counts.removed += 1
    remove(...args)
  }) as typeof signal.removeEventListener
  return counts
}

beforeEach(() => {
  vi.useFakeTimers()
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
})

describe('registerProvider', () => {
  it.each([
    ['null', null],
    ['an object without ask', {}],
    ['an ask that is not a function', { ask: 'yes' }],
  ])('refuses %s with a TypeError', (_name, provider) => {
    const seam = createUserQuestions()
    expect(() => seam.registerProvider(provider as unknown as UserQuestionProvider)).toThrow(
      TypeError,
    )
  })

  it('refuses a second provider with DUPLICATE_PROVIDER and keeps the first active', async () => {
    const seam = createUserQuestions()
    const first = createControllableProvider()
    const second = createControllableProvider()
    seam.registerProvider(first)
    thrownBy(() => seam.registerProvider(second), 'DUPLICATE_PROVIDER')
    const asking = seam.ask({ questions: batch() })
    ;(await first.call(0)).resolve(skipAll(batch()))
    await expect(asking).resolves.toEqual(skipAll(batch()))
    expect(second.calls).toHaveLength(0)
  })

  it('refuses a registration after close() with SEAM_CLOSED', async () => {
    const seam = createUserQuestions()
    await seam.close()
    thrownBy(() => seam.registerProvider(createControllableProvider()), 'SEAM_CLOSED')
  })

  it('has an idempotent disposer', async () => {
    const seam = createUserQuestions()
    const dispose = seam.registerProvider(createControllableProvider())
    dispose()
    expect(() => dispose()).not.toThrow()
    await rejectionOf(seam.ask({ questions: batch() }), 'NO_PROVIDER')
    const next = createControllableProvider()
    seam.registerProvider(next)
    dispose()
    const asking = seam.ask({ questions: batch() })
    ;(await next.call(0)).resolve(skipAll(batch()))
    await expect(asking).resolves.toEqual(skipAll(batch()))
  })

  it('never lets a stale disposer remove a provider registered after it', async () => {
    const seam = createUserQuestions()
    const disposeFirst = seam.registerProvider(createControllableProvider())
    disposeFirst()
    const second = createControllableProvider()
    seam.registerProvider(second)
    const asking = track(seam.ask({ questions: batch() }))
    const call = await second.call(0)
    disposeFirst()
    await settle()
    expect(asking.settlement.status).toBe('pending')
    expect(call.request.signal.aborted).toBe(false)
    thrownBy(() => seam.registerProvider(createControllableProvider()), 'DUPLICATE_PROVIDER')
    call.resolve(skipAll(batch()))
    await asking.done
    expect(asking.settlement).toEqual({ status: 'fulfilled', value: skipAll(batch()) })
  })
})

describe('disposal with asks pending', () => {
  it('without a grace, rejects each with ASK_ABORTED (reason provider-disposed) and aborts its signal', async () => {
    const { seam, provider, dispose } = seamWithProvider()
    const one = seam.ask({ questions: batch() })
    const two = seam.ask({ questions: [choice('other')] })
    const calls = await Promise.all([provider.call(0), provider.call(1)])
    dispose()
    for (const [index, asking] of [one, two].entries()) {
      const error = await rejectionOf(asking, 'ASK_ABORTED')
      expect(error.details).toMatchObject({ reason: 'provider-disposed' })
      expect(calls[index]?.request.signal.aborted).toBe(true)
      expect(calls[index]?.request.signal.reason).toBe(error)
    }
    expect(seam.pending()).toEqual([])
  })

  it('with a grace, waits and presents the ask again, same askId, to the next provider', async () => {
    const seam = createUserQuestions({ providerGraceMs: 10_000 })
    const first = createControllableProvider()
    const dispose = seam.registerProvider(first)
    const asking = track(seam.ask({ questions: batch() }))
    const firstCall = await first.call(0)
    const askId = firstCall.request.askId
    dispose()
    await settle()
    expect(firstCall.request.signal.aborted).toBe(true)
    expect(firstCall.request.signal.reason).toBeInstanceOf(UserQuestionError)
    expect(seam.pending()).toMatchObject([{ askId, state: 'waiting-for-provider' }])
    await vi.advanceTimersByTimeAsync(9_999)
    expect(asking.settlement.status).toBe('pending')

    const second = createControllableProvider()
    seam.registerProvider(second)
    const secondCall = await second.call(0)
    expect(secondCall.request.askId).toBe(askId)
    expect(secondCall.request.questions).toEqual(batch())
    expect(seam.pending()).toMatchObject([{ askId, state: 'presenting' }])
    await vi.advanceTimersByTimeAsync(60_000)
    expect(asking.settlement.status).toBe('pending')

    firstCall.resolve({ answers: [{ id: 'db', selected: ['Postgres'] }] })
    await settle()
    expect(asking.settlement.status).toBe('pending')
    secondCall.resolve(skipAll(batch()))
    await asking.done
    expect(asking.settlement).toEqual({ status: 'fulfilled', value: skipAll(batch()) })
    expect(secondCall.request.signal.aborted).toBe(false)
  })

  it('with a grace, presents every waiting ask to the next provider, in order', async () => {
    const seam = createUserQuestions({ providerGraceMs: 1_000 })
    const dispose = seam.registerProvider(createControllableProvider())
    const one = track(seam.ask({ questions: [choice('a')] }))
    const two = track(seam.ask({ questions: [choice('b')] }))
    await settle()
    const ids = seam.pending().map((entry) => entry.askId)
    dispose()
    const next = createControllableProvider()
    seam.registerProvider(next)
    await settle()
    expect(next.calls.map((call) => call.request.askId)).toEqual(ids)
    for (const call of next.calls) call.resolve(skipAll(call.request.questions))
    await Promise.all([one.done, two.done])
    expect(one.settlement.status).toBe('fulfilled')
    expect(two.settlement.status).toBe('fulfilled')
  })

  it('with a grace, aborts with ASK_ABORTED (provider-disposed) when no provider arrives in time', async () => {
    const seam = createUserQuestions({ providerGraceMs: 2_000 })
    const dispose = seam.registerProvider(createControllableProvider())
    const asking = track(seam.ask({ questions: batch() }))
    await settle()
    dispose()
    await vi.advanceTimersByTimeAsync(1_999)
    expect(asking.settlement.status).toBe('pending')
    await vi.advanceTimersByTimeAsync(1)
    const error = await rejectionOf(
      asking.done.then(() => result(asking)),
      'ASK_ABORTED',
    )
    expect(error.details).toMatchObject({ reason: 'provider-disposed' })
    const late = createControllableProvider()
    seam.registerProvider(late)
    expect(late.calls).toHaveLength(0)
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('waiting for a first provider', () => {
  it('fails with NO_PROVIDER at once by default', async () => {
    const seam = createUserQuestions()
    const asking = track(seam.ask({ questions: batch() }))
    await Promise.resolve()
    await Promise.resolve()
    await asking.done
    expect(vi.getTimerCount()).toBe(0)
    const error = await rejectionOf(result(asking), 'NO_PROVIDER')
    expect(error.message).toContain('provider')
  })

  it('waits up to waitForProviderMs and presents the ask when a provider registers', async () => {
    const seam = createUserQuestions({ waitForProviderMs: 5_000 })
    const asking = track(seam.ask({ questions: batch() }))
    expect(seam.pending()).toMatchObject([{ state: 'waiting-for-provider' }])
    await vi.advanceTimersByTimeAsync(4_999)
    expect(asking.settlement.status).toBe('pending')
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const call = await provider.call(0)
    expect(call.request.questions).toEqual(batch())
    expect(seam.pending()).toMatchObject([{ state: 'presenting' }])
    await vi.advanceTimersByTimeAsync(10_000)
    expect(asking.settlement.status).toBe('pending')
    call.resolve(skipAll(batch()))
    await asking.done
    expect(asking.settlement.status).toBe('fulfilled')
  })

  it('fails with NO_PROVIDER when none registers within waitForProviderMs', async () => {
    const seam = createUserQuestions({ waitForProviderMs: 5_000 })
    const asking = track(seam.ask({ questions: batch() }))
    await vi.advanceTimersByTimeAsync(4_999)
    expect(asking.settlement.status).toBe('pending')
    await vi.advanceTimersByTimeAsync(1)
    await rejectionOf(
      asking.done.then(() => result(asking)),
      'NO_PROVIDER',
    )
    expect(seam.pending()).toEqual([])
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('deadlines', () => {
  it('ends the ask with ASK_TIMEOUT at the seam default deadline, not before', async () => {
    const { seam, provider } = seamWithProvider({ timeoutMs: 30_000 })
    const asking = track(seam.ask({ questions: batch() }))
    const call = await provider.call(0)
    await vi.advanceTimersByTimeAsync(29_999)
    expect(asking.settlement.status).toBe('pending')
    await vi.advanceTimersByTimeAsync(1)
    const error = await rejectionOf(
      asking.done.then(() => result(asking)),
      'ASK_TIMEOUT',
    )
    expect(call.request.signal.reason).toBe(error)
    expect(vi.getTimerCount()).toBe(0)
  })

  it.each([
    ['shorter', 1_000],
    ['longer', 90_000],
  ])('lets a %s per-ask timeoutMs override the seam default', async (_name, timeoutMs) => {
    const seam = createUserQuestions({ timeoutMs: 30_000 })
    seam.registerProvider(createControllableProvider())
    const asking = track(seam.ask({ questions: batch(), timeoutMs }))
    expect(seam.pending()[0]?.deadline).toBe(START + timeoutMs)
    await vi.advanceTimersByTimeAsync(timeoutMs - 1)
    expect(asking.settlement.status).toBe('pending')
    await vi.advanceTimersByTimeAsync(1)
    await rejectionOf(
      asking.done.then(() => result(asking)),
      'ASK_TIMEOUT',
    )
  })

  it('waits indefinitely with a per-ask Infinity, overriding the seam default, and arms no timer', async () => {
    const { seam, provider } = seamWithProvider({ timeoutMs: 1_000 })
    const asking = track(seam.ask({ questions: batch(), timeoutMs: Infinity }))
    const call = await provider.call(0)
    expect(seam.pending()[0]).not.toHaveProperty('deadline')
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(30 * 24 * 3_600_000)
    expect(asking.settlement.status).toBe('pending')
    call.resolve(skipAll(batch()))
    await asking.done
    expect(asking.settlement.status).toBe('fulfilled')
  })

  it('waits indefinitely when neither the seam nor the ask sets a deadline', async () => {
    const seam = createUserQuestions()
    seam.registerProvider(createControllableProvider())
    const asking = track(seam.ask({ questions: batch() }))
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(365 * 24 * 3_600_000)
    expect(asking.settlement.status).toBe('pending')
    await seam.close()
  })

  it('also runs while the ask waits for a provider', async () => {
    const seam = createUserQuestions({ waitForProviderMs: 60_000, timeoutMs: 1_000 })
    const asking = track(seam.ask({ questions: batch() }))
    await vi.advanceTimersByTimeAsync(1_000)
    await rejectionOf(
      asking.done.then(() => result(asking)),
      'ASK_TIMEOUT',
    )
    expect(vi.getTimerCount()).toBe(0)
  })

  it('never turns elapsed time into an answer, and never presents an ask already overdue (timeoutMs 0)', async () => {
    const { seam, provider } = seamWithProvider()
    const asking = track(seam.ask({ questions: batch(), timeoutMs: 0 }))
    await settle()
    await asking.done
    await rejectionOf(result(asking), 'ASK_TIMEOUT')
    expect(provider.calls).toHaveLength(0)
  })

  it('ends an answer that arrives after the deadline ASK_TIMEOUT: elapsed time is never an answer', async () => {
    const { seam, provider } = seamWithProvider({ timeoutMs: 1_000 })
    const asking = track(seam.ask({ questions: batch() }))
    const call = await provider.call(0)
    await vi.advanceTimersByTimeAsync(1_000)
    await asking.done
    await rejectionOf(result(asking), 'ASK_TIMEOUT')
    call.resolve(skipAll(batch()))
    await settle()
    expect(asking.settlement.status).toBe('rejected')
  })
})

describe('caller abort', () => {
  it('before the ask: ASK_ABORTED with the signal’s reason as cause, never presented', async () => {
    const { seam, provider } = seamWithProvider()
    const controller = new AbortController()
    const reason = new Error('the tool call was cancelled')
    controller.abort(reason)
    const error = await rejectionOf(
      seam.ask({ questions: batch(), signal: controller.signal }),
      'ASK_ABORTED',
    )
    expect(error.cause).toBe(reason)
    expect(provider.calls).toHaveLength(0)
    expect(abortListeners(controller.signal)).toBe(0)
  })

  it('while presenting: ASK_ABORTED with the reason as cause; the provider’s signal aborts with that error', async () => {
    const { seam, provider } = seamWithProvider()
    const controller = new AbortController()
    const counts = countingSignal(controller.signal)
    const asking = seam.ask({ questions: batch(), signal: controller.signal })
    const call = await provider.call(0)
    expect(counts.added).toBeGreaterThan(0)
    const reason = { why: 'user pressed escape in the agent' }
    controller.abort(reason)
    const error = await rejectionOf(asking, 'ASK_ABORTED')
    expect(error.cause).toBe(reason)
    expect(error.details).toMatchObject({ reason: 'caller-aborted' })
    expect(call.request.signal.aborted).toBe(true)
    expect(call.request.signal.reason).toBe(error)
    expect(abortListeners(controller.signal)).toBe(0)
  })

  it('while waiting for a provider: ASK_ABORTED, and the late provider never sees it', async () => {
    const seam = createUserQuestions({ waitForProviderMs: 10_000 })
    const controller = new AbortController()
    const asking = seam.ask({ questions: batch(), signal: controller.signal })
    controller.abort('stop')
    const error = await rejectionOf(asking, 'ASK_ABORTED')
    expect(error.cause).toBe('stop')
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    expect(provider.calls).toHaveLength(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it.each([
    'answered',
    'cancelled',
    'failed',
    'timed out',
    'closed',
    'disposed',
    'no provider',
  ] as const)('leaves no listener on the caller’s signal once the ask is %s', async (ending) => {
    const seam = createUserQuestions({
      timeoutMs: 1_000,
      ...(ending === 'no provider' ? { waitForProviderMs: 500 } : {}),
    })
    const provider = createControllableProvider()
    const dispose = ending === 'no provider' ? () => {} : seam.registerProvider(provider)
    const controller = new AbortController()
    const counts = countingSignal(controller.signal)
    const asking = track(seam.ask({ questions: batch(), signal: controller.signal }))
    expect(abortListeners(controller.signal)).toBe(1)
    await settle()
    if (ending === 'answered') provider.last().resolve(skipAll(batch()))
    if (ending === 'cancelled')
      provider.last().reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
    if (ending === 'failed') provider.last().reject(new Error('crash'))
    if (ending === 'timed out') await vi.advanceTimersByTimeAsync(1_000)
    if (ending === 'closed') await seam.close()
    if (ending === 'disposed') dispose()
    if (ending === 'no provider') await vi.advanceTimersByTimeAsync(500)
    await asking.done
    expect(asking.settlement.status).toBe(ending === 'answered' ? 'fulfilled' : 'rejected')
    expect(abortListeners(controller.signal)).toBe(0)
    expect(counts.removed).toBe(counts.added)
    expect(vi.getTimerCount()).toBe(0)
    controller.abort()
    await settle()
    expect(asking.count).toBe(1)
  })
})

describe('a caller signal shared by many asks', () => {
  it('ends every ask it owns on abort and keeps no listener once they settle', async () => {
    const { seam, provider } = seamWithProvider()
    const controller = new AbortController()
    const asks = [0, 1, 2].map((index) =>
      track(seam.ask({ questions: [choice(`q${index}`)], signal: controller.signal })),
    )
    const calls = await Promise.all([0, 1, 2].map((index) => provider.call(index)))
    expect(abortListeners(controller.signal)).toBeGreaterThan(0)
    calls[0]?.resolve(skipAll([choice('q0')]))
    await asks[0]?.done
    expect(abortListeners(controller.signal)).toBeGreaterThan(0)
    controller.abort('stop')
    await Promise.all(asks.map((asking) => asking.done))
    expect(asks.map((asking) => asking.settlement.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
    ])
    for (const asking of asks.slice(1)) await rejectionOf(result(asking), 'ASK_ABORTED')
    expect(calls[0]?.request.signal.aborted).toBe(false)
    expect(calls[1]?.request.signal.aborted).toBe(true)
    expect(abortListeners(controller.signal)).toBe(0)
  })

  it('lets go of the signal once every ask that shared it has settled', async () => {
    const { seam, provider } = seamWithProvider()
    const controller = new AbortController()
    const asks = [0, 1, 2].map((index) =>
      track(seam.ask({ questions: [choice(`q${index}`)], signal: controller.signal })),
    )
    await settle()
    for (const [index, call] of provider.calls.entries()) {
      call.resolve(skipAll([choice(`q${index}`)]))
    }
    await Promise.all(asks.map((asking) => asking.done))
    expect(abortListeners(controller.signal)).toBe(0)
    const later = track(seam.ask({ questions: [choice('later')], signal: controller.signal }))
    controller.abort('stop')
    await later.done
    await rejectionOf(result(later), 'ASK_ABORTED')
    expect(abortListeners(controller.signal)).toBe(0)
  })
})

describe('close()', () => {
  it('rejects every pending ask with SEAM_CLOSED and aborts the provider’s signals with it', async () => {
    const { seam, provider } = seamWithProvider({ timeoutMs: 60_000 })
    const one = track(seam.ask({ questions: [choice('a')] }))
    const two = track(seam.ask({ questions: [choice('b')] }))
    await settle()
    await seam.close()
    expect(one.settlement.status).toBe('rejected')
    expect(two.settlement.status).toBe('rejected')
    for (const [index, asking] of [one, two].entries()) {
      const error = await rejectionOf(result(asking), 'SEAM_CLOSED')
      expect(provider.calls[index]?.request.signal.reason).toBe(error)
    }
    expect(seam.pending()).toEqual([])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('rejects asks still waiting for a provider', async () => {
    const seam = createUserQuestions({ waitForProviderMs: 60_000 })
    const asking = seam.ask({ questions: batch() })
    await seam.close()
    await rejectionOf(asking, 'SEAM_CLOSED')
  })

  it('rejects asks waiting out a provider grace', async () => {
    const seam = createUserQuestions({ providerGraceMs: 60_000 })
    const dispose = seam.registerProvider(createControllableProvider())
    const asking = seam.ask({ questions: batch() })
    dispose()
    await seam.close()
    await rejectionOf(asking, 'SEAM_CLOSED')
    expect(vi.getTimerCount()).toBe(0)
  })

  it('refuses new asks and registrations, and may be called again', async () => {
    const seam = createUserQuestions()
    seam.registerProvider(createControllableProvider())
    await seam.close()
    await rejectionOf(seam.ask({ questions: batch() }), 'SEAM_CLOSED')
    thrownBy(() => seam.registerProvider(createControllableProvider()), 'SEAM_CLOSED')
    await expect(seam.close()).resolves.toBeUndefined()
  })
})

describe('the provider’s signal', () => {
  const endings = ['caller abort', 'deadline', 'close', 'disposal'] as const

  it.each(endings)(
    'aborts with the ending error as reason when the ask ends by %s',
    async (ending) => {
      const { seam, provider, dispose } = seamWithProvider({ timeoutMs: 1_000 })
      const controller = new AbortController()
      const asking = track(seam.ask({ questions: batch(), signal: controller.signal }))
      const { signal } = (await provider.call(0)).request
      let seenReason: unknown
      signal.addEventListener('abort', () => {
        seenReason = signal.reason
      })
      if (ending === 'caller abort') controller.abort()
      if (ending === 'deadline') await vi.advanceTimersByTimeAsync(1_000)
      if (ending === 'close') await seam.close()
      if (ending === 'disposal') dispose()
      await asking.done
      expect(asking.settlement.status).toBe('rejected')
      const error = (asking.settlement as { reason: unknown }).reason
      expect(error).toBeInstanceOf(UserQuestionError)
      expect(signal.aborted).toBe(true)
      expect(signal.reason).toBe(error)
      expect(seenReason).toBe(error)
    },
  )

  it.each(['an answer', 'a cancel', 'a failure', 'a bad answer'] as const)(
    'does not abort when the provider itself settles with %s, nor afterwards',
    async (settlement) => {
      const { seam, provider, dispose } = seamWithProvider({ timeoutMs: 1_000 })
      const controller = new AbortController()
      const asking = track(seam.ask({ questions: batch(), signal: controller.signal }))
      const call = await provider.call(0)
      if (settlement === 'an answer') call.resolve(skipAll(batch()))
      if (settlement === 'a cancel') call.reject(new UserQuestionError('no', 'ASK_CANCELLED'))
      if (settlement === 'a failure') call.reject(new Error('crash'))
      if (settlement === 'a bad answer') call.resolve({ answers: [] })
      await asking.done
      controller.abort()
      await vi.advanceTimersByTimeAsync(5_000)
      dispose()
      await seam.close()
      expect(call.request.signal.aborted).toBe(false)
      expect(asking.count).toBe(1)
    },
  )
})

describe('answers', () => {
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

describe('pending()', () => {
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

describe('the questions a provider is given', () => {
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

describe('what pending() returns', () => {
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

/** Every way a presented ask can end, or try to. */
type Step = 'answer' | 'cancel' | 'abort' | 'deadline' | 'dispose' | 'close'
const STEPS: readonly Step[] = ['answer', 'cancel', 'abort', 'deadline', 'dispose', 'close']

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]]
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [
      item,
      ...rest,
    ]),
  )
}

/** What the caller sees when `step` is the first to end the ask. */
function expectOutcome(
  step: Step,
  tracked: ReturnType<typeof track<AskUserQuestionAnswer>>,
  abortReason: unknown,
): void {
  const settlement = tracked.settlement
  if (step === 'answer') {
    expect(settlement).toEqual({ status: 'fulfilled', value: skipAll(batch()) })
    return
  }
  expect(settlement.status).toBe('rejected')
  const error = (settlement as { reason: unknown }).reason as UserQuestionError
  expect(error).toBeInstanceOf(UserQuestionError)
  const code = {
    cancel: 'ASK_CANCELLED',
    abort: 'ASK_ABORTED',
    deadline: 'ASK_TIMEOUT',
    dispose: 'ASK_ABORTED',
    close: 'SEAM_CLOSED',
  }[step]
  expect(error.code).toBe(code)
  if (step === 'abort') expect(error.cause).toBe(abortReason)
  if (step === 'dispose') expect(error.details).toMatchObject({ reason: 'provider-disposed' })
}

async function runOrder(order: readonly Step[], providerGraceMs: number): Promise<void> {
  vi.setSystemTime(START)
  const seam: UserQuestions = createUserQuestions({ timeoutMs: 1_000, providerGraceMs })
  const provider = createControllableProvider()
  const dispose = seam.registerProvider(provider)
  const controller = new AbortController()
  const abortReason = new Error('caller gave up')
  const asking = track(seam.ask({ questions: batch(), signal: controller.signal }))
  const call = await provider.call(0)
  let first: Step | undefined
  let disposedFirst = false
  for (const step of order) {
    if (step === 'answer') call.resolve(skipAll(batch()))
    if (step === 'cancel') call.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
    if (step === 'abort') controller.abort(abortReason)
    if (step === 'deadline') await vi.advanceTimersByTimeAsync(1_000)
    if (step === 'dispose') dispose()
    if (step === 'close') await seam.close()
    await settle()
    // With a grace, disposal hands the ask over; what the old provider does afterwards is moot.
    if (providerGraceMs > 0 && step === 'dispose' && first === undefined) disposedFirst = true
    const effective =
      !(disposedFirst && (step === 'answer' || step === 'cancel')) &&
      !(providerGraceMs > 0 && step === 'dispose')
    if (first === undefined && effective) {
      first = step
      expect(asking.count, `after ${order.join(' → ')}`).toBe(1)
      expectOutcome(step, asking, abortReason)
    }
  }
  const settled = asking.settlement
  expect(first).toBeDefined()
  expect(asking.count).toBe(1)
  expectOutcome(first as Step, asking, abortReason)
  expect(asking.settlement).toBe(settled)
  expect(seam.pending()).toEqual([])
  expect(abortListeners(controller.signal)).toBe(0)
  expect(vi.getTimerCount()).toBe(0)
  const providerSettledFirst = !disposedFirst && (first === 'answer' || first === 'cancel')
  expect(call.request.signal.aborted).toBe(!providerSettledFirst)
  if (!providerSettledFirst && !disposedFirst) {
    expect(call.request.signal.reason).toBe((settled as { reason: unknown }).reason)
  }
}

describe('every ask settles exactly once', () => {
  const orders = permutations(STEPS)

  it(`whatever the order of answer, cancel, abort, deadline, disposal and close (${orders.length} orders, no grace)`, async () => {
    for (const order of orders) await runOrder(order, 0)
  })

  it(`whatever the order, when disposal hands the ask over within a grace (${orders.length} orders)`, async () => {
    for (const order of orders) await runOrder(order, 5_000)
  })
})

/** Turns a tracked settlement back into a promise for {@link rejectionOf}. */
function result<T>(tracked: ReturnType<typeof track<T>>): Promise<T> {
  const settlement = tracked.settlement
  if (settlement.status === 'fulfilled') return Promise.resolve(settlement.value)
  if (settlement.status === 'rejected') return Promise.reject(settlement.reason)
  return Promise.reject(new Error('the ask has not settled'))
}
