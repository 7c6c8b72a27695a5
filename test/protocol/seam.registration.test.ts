import { describe, expect, it, vi } from 'vitest'
import {
  UserQuestionError,
  createMemoryStore,
  createUserQuestions,
} from '../../src/protocol/index.js'
import type { UserQuestionProvider } from '../../src/protocol/index.js'
import {
  choice,
  createControllableProvider,
  seamWithProvider,
  rejectionOf,
  skipAll,
  thrownBy,
  track,
} from '../support/controllable-provider.js'
import { holdingStore } from '../support/holding-store.js'
import { settle } from '../support/settle.js'
import { batch, result, useFakeClock } from './seam-fixtures.js'
import { PEOPLE, answerOf, plan } from './seam-votes-model.js'

/** DESIGN §4: the one provider slot, its disposal with asks pending, and the wait for a first provider. */

useFakeClock()

describe('§4 registerProvider', () => {
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
    expect(thrownBy(() => seam.registerProvider(second), 'DUPLICATE_PROVIDER').message).toBe(
      'another question provider is already active',
    )
    const asking = seam.ask({ questions: batch() })
    ;(await first.call(0)).resolve(skipAll(batch()))
    await expect(asking).resolves.toEqual(skipAll(batch()))
    expect(second.calls).toHaveLength(0)
  })

  it('refuses a registration after close() with SEAM_CLOSED', async () => {
    const seam = createUserQuestions()
    await seam.close()
    const error = thrownBy(() => seam.registerProvider(createControllableProvider()), 'SEAM_CLOSED')
    expect(error.message).toBe('the question seam is closed')
  })

  it.each([{}, { ask: 'not a function' }, null])(
    'refuses %j as a provider with a TypeError, before anything is registered',
    (provider) => {
      const seam = createUserQuestions()
      expect(() => seam.registerProvider(provider as never)).toThrow(
        new TypeError('registerProvider: the provider must have an ask(request) function'),
      )
      expect(() => seam.registerProvider(createControllableProvider())).not.toThrow()
    },
  )

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

describe('§4 disposal with asks pending', () => {
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

  it('with a grace, the next provider’s rejection decides, whatever the old one rejects with meanwhile', async () => {
    const holding = holdingStore(createMemoryStore())
    const seam = createUserQuestions({ store: holding.store, providerGraceMs: 10_000 })
    const first = createControllableProvider()
    const dispose = seam.registerProvider(first)
    const asking = track(seam.ask({ questions: batch() }))
    const firstCall = await first.call(0)
    dispose()
    const second = createControllableProvider()
    seam.registerProvider(second)
    const secondCall = await second.call(0)
    const dismissed = new UserQuestionError('dismissed', 'ASK_CANCELLED')
    secondCall.reject(dismissed)
    await settle()
    expect(holding.held.map((write) => write.outcome)).toEqual([
      { status: 'rejected', error: { code: 'ASK_CANCELLED', message: 'dismissed' } },
    ])
    // The old UI, torn down, rejects what it held while the decision is being written.
    firstCall.reject(new UserQuestionError('the UI was torn down', 'ASK_ABORTED'))
    await settle()
    await holding.release()
    await asking.done
    const error = await rejectionOf(result(asking), 'ASK_CANCELLED')
    // The very error the next provider rejected with, not a copy: its cause and stack are kept.
    expect(error).toBe(dismissed)
    await expect(secondCall.request.settlement).resolves.toEqual({ status: 'accepted' })
  })

  it('with a grace, a provider replaced while its approval is written: the next one is shown the ask, which goes on', async () => {
    const [alice, bob] = PEOPLE
    const holding = holdingStore(createMemoryStore())
    const seam = createUserQuestions({ store: holding.store, providerGraceMs: 60_000 })
    const first = createControllableProvider()
    const dispose = seam.registerProvider(first)
    const asking = track(seam.ask({ questions: plan, approvals: 2 }))
    const shownFirst = await first.call(0)
    shownFirst.resolve({ ...answerOf('approve'), by: alice })
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['vote'])
    dispose()
    const reloaded = createControllableProvider()
    seam.registerProvider(reloaded)
    await holding.release()
    const shown = await reloaded.call(0)
    expect(shown.request).toMatchObject({
      askId: shownFirst.request.askId,
      approvals: { required: 2 },
    })
    expect(asking.settlement).toEqual({ status: 'pending' })
    shown.resolve({ ...answerOf('approve'), by: bob })
    await holding.release()
    await asking.done
    await expect(result(asking)).resolves.toEqual(answerOf('approve'))
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

  it('a provider disposed while ask() still starts the ask (here from its telemetry hook) is never shown it: the ask fails NO_PROVIDER, as with none registered', async () => {
    const registration: { dispose?: () => void } = {}
    const seam = createUserQuestions({
      telemetry: {
        askStarted: () => {
          registration.dispose?.()
          return undefined
        },
        presentationStarted: () => undefined,
      },
    })
    const provider = createControllableProvider()
    registration.dispose = seam.registerProvider(provider)
    const asking = track(seam.ask({ questions: batch() }))
    await settle()
    expect(asking.settlement.status).toBe('rejected')
    const error = await rejectionOf(result(asking), 'NO_PROVIDER')
    expect(provider.calls).toHaveLength(0)
    const [record] = await seam.history({})
    expect(record?.events.map((event) => event.type)).toEqual(['admitted', 'settled'])
    expect(record?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'NO_PROVIDER', message: error.message },
    })
    expect(seam.pending()).toEqual([])
  })
})

describe('§4 waiting for a first provider', () => {
  it('fails with NO_PROVIDER at once by default', async () => {
    const seam = createUserQuestions()
    const asking = track(seam.ask({ questions: batch() }))
    await settle()
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
