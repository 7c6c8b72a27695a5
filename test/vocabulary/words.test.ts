import { describe, expect, it } from 'vitest'
import { durationInWords } from '../../src/vocabulary/index.js'

describe('durationInWords: the span a terminal and the model read for a deadline', () => {
  it.each([
    // A deadline under half a second read "0 seconds": as if nobody had been given any time.
    [-5_000, 'less than a second'],
    [0, 'less than a second'],
    [20, 'less than a second'],
    [499, 'less than a second'],
    [500, '1 second'],
    [1_000, '1 second'],
    [45_000, '45 seconds'],
    [59_400, '59 seconds'],
    [59_600, '1 minute'],
    [90_000, '2 minutes'],
    [59 * 60_000, '59 minutes'],
    [3_570_000, '1 hour'],
    [3_600_000, '1 hour'],
    [5_400_000, '1 hour 30 minutes'],
    [7_260_000, '2 hours 1 minute'],
    [3 * 3_600_000 + 2 * 60_000, '3 hours 2 minutes'],
  ])('%i ms reads "%s"', (milliseconds, words) => {
    expect(durationInWords(milliseconds)).toBe(words)
  })
})
