import { afterEach, describe, expect, it, vi } from 'vitest'
import { MAX_DELAY_MS, clampDelay, delayUntil } from '../../src/machines/time.js'

/** The delays every machine arms (src/machines/time.ts): at least 0, at most what a timer holds. */

afterEach(() => {
  vi.useRealTimers()
})

describe('clampDelay', () => {
  it.each([
    [Number.NaN, 0],
    [-Infinity, 0],
    [-1, 0],
    [0, 0],
    [0.5, 0.5],
    [1, 1],
    [MAX_DELAY_MS, MAX_DELAY_MS],
    [MAX_DELAY_MS + 1, MAX_DELAY_MS],
    [Infinity, MAX_DELAY_MS],
  ])('%s ms is %s', (ms, delay) => {
    expect(clampDelay(ms)).toBe(delay)
  })

  it('is a timer’s longest delay', () => {
    expect(MAX_DELAY_MS).toBe(2 ** 31 - 1)
  })
})

describe('delayUntil', () => {
  it('is the time left until an epoch time, clamped', () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(1_000)
    expect(delayUntil(1_250)).toBe(250)
    expect(delayUntil(1_000)).toBe(0)
    expect(delayUntil(500)).toBe(0)
    expect(delayUntil(1_000 + MAX_DELAY_MS * 2)).toBe(MAX_DELAY_MS)
  })
})

describe('clampDelay of negative zero', () => {
  it('is plain 0', () => {
    expect(Object.is(clampDelay(-0), 0)).toBe(true)
  })
})
