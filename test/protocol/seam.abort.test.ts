import { describe, expect, it, vi } from 'vitest'
import {
  UserQuestionError,
  createMemoryStore,
  createUserQuestions,
} from '../../src/protocol/index.js'
import { MAX_RETRY_DELAY_MS } from '../../src/machines/index.js'
import {
  choice,
  createControllableProvider,
  seamWithProvider,
  rejectionOf,
  skipAll,
  track,
} from '../support/controllable-provider.js'
import { holdingStore } from '../support/holding-store.js'
import { settle } from '../support/settle.js'
import {
  abortListeners,
  answerRetriedAfterItsProviderLeft,
  batch,
  countingSignal,
  result,
  useFakeClock,
} from './seam-fixtures.js'

/** DESIGN §4: the caller's signal, and the signal the provider is given. */

useFakeClock()

describe('§4 caller abort', () => {
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

  it('after a hand-over, the abort is the caller’s own: not the error the old provider rejected with', async () => {
    const seam = createUserQuestions({ providerGraceMs: 10_000 })
    const first = createControllableProvider()
    const dispose = seam.registerProvider(first)
    const controller = new AbortController()
    const asking = track(seam.ask({ questions: batch(), signal: controller.signal }))
    const firstCall = await first.call(0)
    dispose()
    // The old UI, torn down, rejects what it held: too late to decide anything.
    firstCall.reject(new UserQuestionError('the UI was torn down', 'ASK_ABORTED'))
    const second = createControllableProvider()
    seam.registerProvider(second)
    const secondCall = await second.call(0)
    const reason = new Error('the tool call was cancelled')
    controller.abort(reason)
    await asking.done
    const error = await rejectionOf(result(asking), 'ASK_ABORTED')
    expect(error.message).toBe('the caller aborted the ask')
    expect(error.details).toEqual({ reason: 'caller-aborted' })
    expect(error.cause).toBe(reason)
    expect(secondCall.request.signal.reason).toBe(error)
  })

  it('after its provider left while the human’s answer waits to be retried: the retries stop, and the ending written is the provider’s leaving', async () => {
    const controller = new AbortController()
    const { inner, locked, asking, askId } = await answerRetriedAfterItsProviderLeft({
      signal: controller.signal,
    })
    await vi.advanceTimersByTimeAsync(MAX_RETRY_DELAY_MS)
    expect(locked.tries.map((each) => each.status)).toContain('answered')
    expect(asking.settlement.status).toBe('pending')
    controller.abort('stop')
    const abortedAt = Date.now()
    await vi.advanceTimersByTimeAsync(2 * MAX_RETRY_DELAY_MS)
    const after = locked.tries.filter((each) => each.at >= abortedAt)
    expect(after.length).toBeGreaterThan(0)
    expect(after.filter((each) => each.status === 'answered')).toEqual([])
    locked.down = false
    await vi.advanceTimersByTimeAsync(MAX_RETRY_DELAY_MS)
    await asking.done
    // The first ending stands: the provider left before the caller aborted.
    const error = await rejectionOf(result(asking), 'ASK_ABORTED')
    expect(error.details).toEqual({ reason: 'provider-disposed' })
    expect(locked.tries.at(-1)?.status).toBe('ASK_ABORTED')
    expect((await inner.get(askId))?.outcome).toMatchObject({
      error: { code: 'ASK_ABORTED', details: { reason: 'provider-disposed' } },
    })
  })

  it('after close() has ended an ask still being admitted, a later abort adds nothing: SEAM_CLOSED without its reason', async () => {
    const holding = holdingStore(createMemoryStore(), { admissions: true })
    const seam = createUserQuestions({ store: holding.store })
    seam.registerProvider(createControllableProvider())
    const controller = new AbortController()
    const asking = track(seam.ask({ questions: batch(), signal: controller.signal }))
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['admit'])
    const closing = seam.close()
    controller.abort(new Error('the tool call was cancelled'))
    await holding.release()
    await closing
    await asking.done
    const error = await rejectionOf(result(asking), 'SEAM_CLOSED')
    expect(error.cause).toBeUndefined()
    expect(abortListeners(controller.signal)).toBe(0)
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

describe('§4 a caller signal shared by many asks', () => {
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

describe('§4 the provider’s signal', () => {
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
