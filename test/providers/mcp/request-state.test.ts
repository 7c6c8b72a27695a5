import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  callDigest,
  openRequestState,
  sealRequestState,
  secretBytes,
} from '../../../src/providers/mcp/request-state.js'
import type { StateBinding, StatePayload } from '../../../src/providers/mcp/request-state.js'
import { canonicalJson } from '../../../src/vocabulary/index.js'

const secret = secretBytes('a fleet secret of at least thirty-two bytes')
const binding: StateBinding = {
  method: 'tools/call',
  call: callDigest('plan_deployment', { service: 'checkout' }),
  client: 'desk-client',
}
const payload: StatePayload = {
  callId: 'c1',
  asks: [{ requestKey: 'a1', askId: 'a1', key: 'mcp:c1:0' }],
}
const now = 1_000_000
const sealed = sealRequestState(secret, payload, binding, now + 60_000)

function refusal(state: unknown, bound: StateBinding = binding, at = now) {
  try {
    openRequestState(secret, state, bound, at)
  } catch (error: unknown) {
    return error
  }
  throw new Error('the state was accepted')
}

describe('the sealed requestState', () => {
  it('opens for the call it was sealed for', () => {
    expect(openRequestState(secret, sealed, binding, now)).toEqual(payload)
  })

  it.each([
    ['another tool call', { ...binding, call: callDigest('plan_deployment', { service: 'x' }) }],
    ['another tool', { ...binding, call: callDigest('other', { service: 'checkout' }) }],
    ['another client', { ...binding, client: 'someone-else' }],
    ['no client where one was bound', { method: binding.method, call: binding.call }],
    ['another method', { ...binding, method: 'prompts/get' }],
  ])('is refused for %s', (_, other) => {
    expect(refusal(sealed, other)).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'requestState', reason: 'binding' },
    })
  })

  it('is refused at and after its expiry', () => {
    expect(refusal(sealed, binding, now + 60_000)).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { reason: 'expired' },
    })
  })

  it('is refused under another secret', () => {
    const other = secretBytes('another fleet secret, also thirty-two bytes long')
    expect(() => openRequestState(other, sealed, binding, now)).toThrowError(
      expect.objectContaining({
        code: 'INVALID_REQUEST',
        details: expect.objectContaining({ reason: 'signature' }),
      }),
    )
  })

  it.each([undefined, 3, '', 'garbage', 'a.b.c', `${sealed}.`, '.', 'x'.repeat(70_000)])(
    'refuses garbage %#',
    (garbage) => {
      expect(refusal(garbage)).toMatchObject({
        code: 'INVALID_REQUEST',
        details: { field: 'requestState' },
      })
    },
  )

  it('says the same thing for every refusal', () => {
    const messages = new Set(
      [
        refusal('garbage'),
        refusal(sealed, { ...binding, client: 'x' }),
        refusal(sealed, binding, now + 60_000),
      ].map((error) => (error as Error).message),
    )
    expect(messages.size).toBe(1)
  })

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => secretBytes('short')).toThrowError(/at least 32 bytes/)
  })

  it('digests arguments by value, not by key order', () => {
    expect(callDigest('t', { a: 1, b: [1, { c: 2, d: 3 }] })).toBe(
      callDigest('t', { b: [1, { d: 3, c: 2 }], a: 1 }),
    )
    expect(canonicalJson({ b: 1, a: undefined, c: { z: 1, y: 2 } })).toBe(
      '{"b":1,"c":{"y":2,"z":1}}',
    )
  })

  it('refuses any single-byte edit', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: sealed.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        (index, delta) => {
          const bytes = Buffer.from(sealed, 'latin1')
          bytes[index] = ((bytes[index] as number) + delta) % 256
          const edited = bytes.toString('latin1')
          const error = refusal(edited)
          return (
            (error as { code?: unknown }).code === 'INVALID_REQUEST' &&
            (error as { details?: { field?: unknown } }).details?.field === 'requestState'
          )
        },
      ),
      { numRuns: 2_000 },
    )
  })
})
