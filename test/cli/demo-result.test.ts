/**
 * What the demo prints as the model's result, on a narrow terminal: wrapped
 * between JSON values (or words), never inside one, and every character kept.
 */
import { describe, expect, it } from 'vitest'
import { wrappedResult } from '../../src/cli/demo.js'

const json =
  '{"answers":[{"id":"region","selected":["eu-west-1 (Recommended)"]},{"id":"checks","selected":["Smoke tests","Load test"]},{"id":"announce","selected":[],"custom":"eu-central-1 please, with a canary first"}]}'

describe('the model-facing result on a 40-column terminal', () => {
  const lines = wrappedResult(json, 40).split('\n')

  it('fits the width under its four-column indent', () => {
    expect(lines.length).toBeGreaterThan(3)
    for (const [index, line] of lines.entries()) {
      expect(`${index === 0 ? '    ' : ''}${line}`.length).toBeLessThanOrEqual(39)
    }
  })

  it('breaks only after a comma outside a string, or after a space, and keeps every character', () => {
    const joined = lines.map((line, index) => (index === 0 ? line : line.slice(4))).join('')
    expect(joined).toBe(json)
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/[, ]$/)
    // "eu-west-1 (Recommended)" and the custom text break, if at all, between words.
    expect(lines.some((line) => /pl$|eu-cen$|Recomm$/.test(line))).toBe(false)
  })

  it('wraps an error sentence between words, and leaves a short result alone', () => {
    const error =
      'ASK_CANCELLED: the user dismissed the question; ask in the chat instead of calling the tool again'
    const wrapped = wrappedResult(error, 40).split('\n    ')
    expect(wrapped.join('')).toBe(error)
    for (const line of wrapped.slice(0, -1)) expect(line).toMatch(/ $/)
    expect(wrappedResult('{"answers":[]}', 40)).toBe('{"answers":[]}')
  })
})
