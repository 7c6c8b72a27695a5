import { describe, expect, it } from 'vitest'
import {
  MAX_TRACE_CONTEXT_ENTRIES,
  MAX_TRACE_CONTEXT_LENGTH,
  callerAbortOutcome,
  noProviderOutcome,
  outcomeName,
  readTraceContext,
  seamClosedOutcome,
  timeoutOutcome,
} from '../../src/vocabulary/index.js'

/** What telemetry keeps with an ask (DESIGN §13): a trace context, and the names of outcomes. */

describe('readTraceContext', () => {
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'

  it('keeps a flat map of strings, frozen, as a copy', () => {
    const written = { traceparent, tracestate: 'vendor=opaque' }
    const read = readTraceContext(written)
    expect(read).toEqual(written)
    expect(read).not.toBe(written)
    expect(Object.isFrozen(read)).toBe(true)
  })

  it.each([
    ['nothing', undefined],
    ['null', null],
    ['a string', traceparent],
    ['an array', [traceparent]],
    ['an empty map', {}],
    ['a number value', { traceparent: 42 }],
    ['a nested value', { traceparent: { value: traceparent } }],
    ['an empty key', { '': traceparent }],
    ['a class instance', new Map([['traceparent', traceparent]])],
    [
      'too many entries',
      Object.fromEntries(
        Array.from({ length: MAX_TRACE_CONTEXT_ENTRIES + 1 }, (_, i) => [`k${i}`, 'v']),
      ),
    ],
    ['too long a value', { traceparent: 'x'.repeat(MAX_TRACE_CONTEXT_LENGTH) }],
  ])('drops %s', (_, value) => {
    expect(readTraceContext(value)).toBeUndefined()
  })

  it('takes a map at its limits', () => {
    const full = Object.fromEntries(
      Array.from({ length: MAX_TRACE_CONTEXT_ENTRIES }, (_, i) => [`k${i}`, 'v']),
    )
    expect(readTraceContext(full)).toEqual(full)
    const long = { t: 'x'.repeat(MAX_TRACE_CONTEXT_LENGTH - 1) }
    expect(readTraceContext(long)).toEqual(long)
  })
})

describe('outcomeName', () => {
  it.each([
    [{ status: 'answered' as const, answer: { answers: [] } }, 'answered'],
    [
      { status: 'rejected' as const, error: { code: 'ASK_CANCELLED' as const, message: 'no' } },
      'cancelled',
    ],
    [timeoutOutcome({ deadline: 2, startedAt: 1 }), 'timed-out'],
    [callerAbortOutcome(), 'aborted'],
    [seamClosedOutcome(), 'aborted'],
    [noProviderOutcome(), 'failed'],
    [
      { status: 'rejected' as const, error: { code: 'BAD_ANSWER' as const, message: 'x' } },
      'failed',
    ],
  ])('names %j %s', (outcome, name) => {
    expect(outcomeName(outcome)).toBe(name)
  })
})

describe('readTraceContext: prototypes', () => {
  it('takes a map without a prototype, and refuses a class instance', () => {
    const bare = Object.assign(Object.create(null) as Record<string, string>, { traceparent: 't' })
    expect(readTraceContext(bare)).toEqual({ traceparent: 't' })
    class Carrier {
      traceparent = 't'
    }
    expect(readTraceContext(new Carrier())).toBeUndefined()
  })
})
