import { describe, expect, it, vi } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import { MAX_RETRY_DELAY_MS } from '../../src/machines/index.js'
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
import {
  START,
  answerRetriedAfterItsProviderLeft,
  batch,
  result,
  useFakeClock,
} from './seam-fixtures.js'

/** DESIGN §4: an ask's deadline, and close() with asks pending. */

useFakeClock()

describe('§4 deadlines', () => {
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

  it('a provider that arrives after the deadline, before its timer fired, is never shown the ask, and the store holds ASK_TIMEOUT when the caller hears it', async () => {
    const store = createMemoryStore()
    const seam = createUserQuestions({ store, waitForProviderMs: 60_000, timeoutMs: 1_000 })
    const asking = track(seam.ask({ questions: batch() }))
    await settle()
    const askId = seam.pending()[0]?.askId as string
    // The clock passes the deadline while the process is busy: no timer has fired yet.
    vi.setSystemTime(START + 1_500)
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    await asking.done
    await rejectionOf(result(asking), 'ASK_TIMEOUT')
    expect(provider.calls).toHaveLength(0)
    expect((await store.get(askId))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'ASK_TIMEOUT' },
    })
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

  it('is final for an answer still being retried after its provider left: no write of that answer once the deadline passes', async () => {
    const { inner, locked, asking, askId } = await answerRetriedAfterItsProviderLeft({
      timeoutMs: 10_000,
    })
    expect(locked.tries).toEqual([{ status: 'answered', at: START }])
    await vi.advanceTimersByTimeAsync(9_999)
    expect(locked.tries.length).toBeGreaterThan(1)
    expect(asking.settlement.status).toBe('pending')
    await vi.advanceTimersByTimeAsync(1 + MAX_RETRY_DELAY_MS)
    const late = locked.tries.filter((each) => each.at >= START + 10_000)
    expect(late.length).toBeGreaterThan(0)
    expect(late.filter((each) => each.status === 'answered')).toEqual([])
    expect(locked.tries.at(-1)?.status).toBe('ASK_ABORTED')
    locked.down = false
    await vi.advanceTimersByTimeAsync(MAX_RETRY_DELAY_MS)
    await asking.done
    // The ending written after the deadline is refused: the store holds ASK_TIMEOUT, and so does the caller.
    await rejectionOf(result(asking), 'ASK_TIMEOUT')
    expect((await inner.get(askId))?.outcome).toMatchObject({
      error: { code: 'ASK_TIMEOUT' },
    })
  })
})

describe('§4 close()', () => {
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
