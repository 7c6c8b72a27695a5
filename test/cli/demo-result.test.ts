/**
 * What the demo prints as the model's result, on a narrow terminal: wrapped
 * between JSON values (or words), never inside one, and every character kept.
 */
import { describe, expect, it } from 'vitest'
import { wrapped, wrappedResult } from '../../src/cli/demo.js'

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

describe('a line of the demo on a narrow terminal', () => {
  const note =
    'Asks kept in /tmp/askseam-demo-ada/terminal.sqlite: stop mid-question and run again to resume; --fresh starts over.'

  it('breaks between words, later lines under the first word, and keeps every word', () => {
    const lines = wrapped(note, 60, 1).split('\n')
    expect(lines.length).toBeGreaterThan(1)
    expect(lines[0]).toMatch(/^Asks kept in /)
    // Each line holds as many words as fit: the next line's first word would not.
    lines.slice(0, -1).forEach((line, index) => {
      const next = (lines[index + 1] as string).trimStart().split(' ')[0] as string
      expect(1 + line.trimStart().length + 1 + next.length).toBeGreaterThanOrEqual(60)
    })
    // Printed one column in, as the note is: no line reaches the last column.
    for (const line of lines) expect(1 + line.trimStart().length).toBeLessThan(60)
    for (const line of lines.slice(1)) expect(line).toMatch(/^ \S/)
    expect(lines.map((line) => line.trim()).join(' ')).toBe(note)
    expect(lines.some((line) => line.trim() === '--fresh' || line.endsWith('--f'))).toBe(false)
  })

  it('three columns in by default, where a step’s words start after its bullet', () => {
    const lines = wrapped(note, 50).split('\n')
    for (const line of lines) expect(3 + line.trimStart().length).toBeLessThan(50)
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {3}\S/)
  })
})
