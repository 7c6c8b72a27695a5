import { describe, expect, it } from 'vitest'
import { callProvider, safeProviderError } from '../../src/protocol/provider-call.js'
import { createLiveCalls } from '../../src/protocol/live-calls.js'
import { UserQuestionError } from '../../src/vocabulary/index.js'
import type { ProviderRequest, ProviderSettlement } from '../../src/vocabulary/index.js'
import { settle } from '../support/settle.js'

/*
 * §4 providers are untrusted: what a provider rejects with is read through
 * `safeProviderError`, and a value that changes between reads (a getter that
 * lies the second time) still becomes one safe, coded error.
 */

/** A real UserQuestionError whose `field` reads `first` once, then `later` (or throws). */
function lyingError(field: 'code' | 'message' | 'details', first: unknown, later: () => unknown) {
  const error = new UserQuestionError('the human left', 'ASK_CANCELLED')
  let reads = 0
  Object.defineProperty(error, field, {
    get: () => (reads++ === 0 ? first : later()),
    configurable: true,
  })
  return error
}

/** `safeProviderError` keeps the provider's code and message but drops its details (the error stays the cause). */
function expectDetailsDropped(error: UserQuestionError) {
  const safe = safeProviderError(error)
  expect(safe).not.toBe(error)
  expect(safe.code).toBe('ASK_CANCELLED')
  expect(safe.message).toBe('the human left')
  expect(safe.details).toBeUndefined()
  expect(safe.cause).toBe(error)
}

describe('§4 provider errors: safeProviderError', () => {
  it('keeps a provider’s own UserQuestionError as it is', () => {
    const error = new UserQuestionError('the human left', 'ASK_CANCELLED', {
      details: { reason: 'closed-tab' },
    })
    expect(safeProviderError(error)).toBe(error)
  })

  it('names an unknown code in PROVIDER_FAILED’s message, keeping the provider’s words', () => {
    const error = lyingError('code', 'ASK_CANCELLED', () => 'MADE_UP')
    const safe = safeProviderError(error)
    expect(safe.code).toBe('PROVIDER_FAILED')
    expect(safe.message).toBe('The question provider failed: the human left')
    expect(safe.cause).toBe(error)
  })

  it('a code that stops being a string is PROVIDER_FAILED, even one that reads as a known code', () => {
    const error = lyingError('code', 'ASK_CANCELLED', () => ({ toString: () => 'ASK_CANCELLED' }))
    const safe = safeProviderError(error)
    expect(safe.code).toBe('PROVIDER_FAILED')
    expect(safe.message).toBe('The question provider failed: the human left')
    expect(safe.cause).toBe(error)
  })

  it('a message that stops being a string is PROVIDER_FAILED with the plain message', () => {
    const error = lyingError('message', 'the human left', () => 42)
    const safe = safeProviderError(error)
    expect(safe.code).toBe('PROVIDER_FAILED')
    expect(safe.message).toBe('The question provider failed')
    expect(safe.cause).toBe(error)
  })

  it('details that stop being an object are dropped, the code and message kept', () => {
    const error = lyingError('details', { reason: 'closed-tab' }, () => 'not details')
    expectDetailsDropped(error)
  })

  it('details that become null are dropped, the code and message kept', () => {
    const error = lyingError('details', { reason: 'closed-tab' }, () => null)
    expectDetailsDropped(error)
  })

  it.each([
    ['a bigint', () => ({ reason: 'closed-tab', tabs: 2n })],
    [
      'a cycle',
      () => {
        const details: Record<string, unknown> = { reason: 'closed-tab' }
        details.self = details
        return details
      },
    ],
  ])('details JSON cannot write (%s) are dropped, the code and message kept', (_, details) => {
    const error = new UserQuestionError('the human left', 'ASK_CANCELLED', { details: details() })
    expectDetailsDropped(error)
  })

  it('details that throw only when read again are PROVIDER_FAILED', () => {
    const error = lyingError('details', { reason: 'closed-tab' }, () => {
      throw new Error('a getter that throws the second time')
    })
    const safe = safeProviderError(error)
    expect(safe.code).toBe('PROVIDER_FAILED')
    expect(safe.message).toBe('The question provider failed')
    expect(safe.cause).toBe(error)
  })

  it('details whose keys cannot be listed the second time are PROVIDER_FAILED', () => {
    let lists = 0
    const details = new Proxy(
      { reason: 'closed-tab' },
      {
        ownKeys: (target) => {
          if (lists++ > 0) throw new Error('no keys today')
          return Reflect.ownKeys(target)
        },
      },
    )
    const error = new UserQuestionError('the human left', 'ASK_CANCELLED')
    Object.defineProperty(error, 'details', { value: details })
    expect(safeProviderError(error).code).toBe('PROVIDER_FAILED')
  })
})

describe('§4 the provider call: callProvider', () => {
  const subject = { askId: 'ask-1', questions: [{ id: 'go', question: 'Go?' }] }

  it('hands the provider only the fields the presentation has, on a turn of its own', async () => {
    const seen: ProviderRequest[] = []
    const answered: Promise<unknown>[] = []
    callProvider(
      { ask: (request) => (seen.push(request), Promise.resolve({ answers: [] })) },
      subject,
      (answer) => answered.push(answer),
    )
    expect(seen).toEqual([])
    await settle()
    expect(Object.keys(seen[0]!).sort()).toEqual(['askId', 'questions', 'settlement', 'signal'])
    await expect(answered[0]).resolves.toEqual({ answers: [] })
  })

  it('passes the agent, deadline, answerers and approval count when there are some', async () => {
    const seen: ProviderRequest[] = []
    const full = {
      ...subject,
      agent: { id: 'agent-7' },
      deadline: 1_000,
      answerers: ['ana'],
      approvals: { required: 2, given: [] },
    }
    callProvider({ ask: (request) => (seen.push(request), new Promise(() => {})) }, full, () => {})
    await settle()
    expect(seen[0]).toMatchObject({
      agent: { id: 'agent-7' },
      deadline: 1_000,
      answerers: ['ana'],
      approvals: { required: 2, given: [] },
    })
  })

  it('a call aborted before its turn never reaches the provider', async () => {
    let asked = 0
    let handed = 0
    const call = callProvider(
      { ask: () => (asked++, new Promise(() => {})) },
      subject,
      () => handed++,
    )
    call.controller.abort()
    await settle()
    expect(asked).toBe(0)
    expect(handed).toBe(0)
  })

  it.each([
    ['a string', 'not a promise'],
    ['null', null],
    ['nothing', undefined],
  ])(
    'a provider that returns %s instead of a promise is PROVIDER_FAILED with the rule it broke',
    async (_name, returned) => {
      const answered: Promise<unknown>[] = []
      callProvider({ ask: () => returned as never }, subject, (answer) =>
        answered.push(answer.catch((rejected: unknown) => rejected)),
      )
      await settle()
      const error = await answered[0]
      expect(error).toBeInstanceOf(UserQuestionError)
      expect(error).toMatchObject({ code: 'PROVIDER_FAILED', details: { rule: 'returns-promise' } })
    },
  )

  it('a provider that throws at once rejects the answer with a safe error', async () => {
    const answered: Promise<unknown>[] = []
    callProvider(
      {
        ask: () => {
          throw new UserQuestionError('nobody is here', 'ASK_CANCELLED')
        },
      },
      subject,
      (answer) => answered.push(answer.catch((rejected: unknown) => rejected)),
    )
    await settle()
    await expect(answered[0]).resolves.toMatchObject({ code: 'ASK_CANCELLED' })
  })

  it('tell resolves the request’s settlement', async () => {
    const seen: ProviderRequest[] = []
    const call = callProvider(
      { ask: (request) => (seen.push(request), new Promise(() => {})) },
      subject,
      () => {},
    )
    await settle()
    call.tell({ status: 'accepted' })
    await expect(seen[0]!.settlement).resolves.toEqual({ status: 'accepted' })
  })
})

describe('§4 §12 the live calls of presented asks', () => {
  /** A call whose settlement is recorded, without a provider. */
  function call() {
    const told: ProviderSettlement[] = []
    return {
      controller: new AbortController(),
      tell: (s: ProviderSettlement) => told.push(s),
      told,
    }
  }
  const reason = new UserQuestionError('answered elsewhere', 'ASK_CANCELLED')

  it('a call told while its ask goes on is aborted when the ask ends, and told nothing more', () => {
    const calls = createLiveCalls()
    const first = call()
    calls.open('ask-1', first)
    calls.tell('ask-1', { status: 'counted', approvals: { required: 2, given: [] } }, true)
    const second = call()
    calls.open('ask-1', second)
    calls.end('ask-1', reason)
    expect(first.controller.signal.reason).toBe(reason)
    expect(first.told).toEqual([{ status: 'counted', approvals: { required: 2, given: [] } }])
    expect(second.controller.signal.reason).toBe(reason)
    expect(second.told).toEqual([{ status: 'refused', error: reason }])
  })

  it('a signal aborted already keeps its first reason; ending twice tells once', () => {
    const calls = createLiveCalls()
    const earlier = call()
    const first = new Error('the provider was aborted before')
    calls.open('ask-1', earlier)
    calls.tell('ask-1', { status: 'accepted' }, true)
    earlier.controller.abort(first)
    const current = call()
    const own = new Error('aborted by its own UI')
    calls.open('ask-1', current)
    current.controller.abort(own)
    calls.end('ask-1', reason)
    calls.end('ask-1', reason)
    expect(earlier.controller.signal.reason).toBe(first)
    expect(current.controller.signal.reason).toBe(own)
    expect(current.told).toEqual([{ status: 'refused', error: reason }])
  })

  it('an ask that ends with its call’s answer forgets every earlier call unaborted', () => {
    const calls = createLiveCalls()
    const earlier = call()
    calls.open('ask-1', earlier)
    calls.tell('ask-1', { status: 'accepted' }, true)
    const last = call()
    calls.open('ask-1', last)
    calls.tell('ask-1', { status: 'accepted' }, false)
    calls.end('ask-1', reason)
    expect(earlier.controller.signal.aborted).toBe(false)
    expect(last.controller.signal.aborted).toBe(false)
    expect(last.told).toEqual([{ status: 'accepted' }])
  })

  it('a verdict for an ask with no call open (no provider was there to call) tells nobody, and ending it then is quiet', () => {
    const calls = createLiveCalls()
    expect(() => calls.tell('ask-1', { status: 'accepted' }, true)).not.toThrow()
    expect(() => calls.end('ask-1', reason)).not.toThrow()
    const next = call()
    calls.open('ask-1', next)
    calls.end('ask-1', reason)
    expect(next.controller.signal.reason).toBe(reason)
    expect(next.told).toEqual([{ status: 'refused', error: reason }])
  })

  it('clear forgets every call and tells none', () => {
    const calls = createLiveCalls()
    const open = call()
    calls.open('ask-1', open)
    calls.clear()
    calls.end('ask-1', reason)
    expect(open.controller.signal.aborted).toBe(false)
    expect(open.told).toEqual([])
  })
})
