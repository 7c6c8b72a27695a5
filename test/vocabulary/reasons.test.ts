import { readFileSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { AskEndReasons } from '../../src/vocabulary/index.js'

/**
 * DESIGN §6, one outcome vocabulary: every `details.reason` askseam writes
 * comes from one `as const` table (`AskEndReasons`), so a UI or a caller
 * switches on names that cannot drift from what the seam and its providers
 * write. The table is read here from the sources themselves: a reason typed
 * out as a string where an error's details are made, or compared with one
 * where they are read, is a second home for it.
 */

const src = fileURLToPath(new URL('../../src/', import.meta.url))
const sources = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.generated.ts'))
  .filter((file) => file !== 'vocabulary/outcome.ts')
  .map((file) => ({ file, text: readFileSync(`${src}${file}`, 'utf8') }))

/** The places in the sources where `pattern` matches, as `file: match`. */
function found(pattern: RegExp): string[] {
  return sources.flatMap(({ file, text }) =>
    [...text.matchAll(pattern)].map(([match]) => `${file}: ${match}`),
  )
}

describe('§6 the details.reason table', () => {
  it('is read from the whole of src/', () => {
    expect(sources.length).toBeGreaterThan(100)
    expect(sources.some(({ file }) => file === 'protocol/seam.ts')).toBe(true)
  })

  it('is where every details.reason askseam writes comes from', () => {
    expect(found(/details:\s*\{[^}]*?\breason:\s*['"`]/g)).toEqual([])
    // Nor is one of its values typed out as a reason anywhere else (in a doc comment it may be).
    const written = new RegExp(
      `^(?!\\s*(\\*|//)).*\\breason:\\s*'(${Object.values(AskEndReasons).join('|')})'`,
      'gm',
    )
    const otherVocabularies = [
      // The relay's receipts and the terminal queue's drop reasons share some words with it.
      'machines/relayAsk.machine.ts',
      'machines/terminalQueue.machine.ts',
    ]
    expect(
      found(written).filter((place) => !otherVocabularies.some((file) => place.startsWith(file))),
    ).toEqual([])
  })

  it('is what every reader of details.reason compares with', () => {
    expect(found(/details\??\.reason\s*[!=]==?\s*['"`]/g)).toEqual([])
  })

  it('names each reason once, in the words the wire carries', () => {
    const values = Object.values(AskEndReasons)
    expect(new Set(values).size).toBe(values.length)
    for (const value of values) expect(value).toMatch(/^[a-z]+(-[a-z]+)*$/)
  })
})
