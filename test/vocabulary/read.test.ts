import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isStorableId, toStorableId } from '../../src/vocabulary/index.js'

/** What an id a store keys on may hold (src/vocabulary/read.ts), checked on its own. */

/** Any UTF-16 code unit, unpaired surrogates and NUL among them. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit))
/** Text as a client may send it: a few surrogates and NULs among ordinary characters. */
const anyText = fc.string({
  unit: fc.oneof(codeUnit, fc.constantFrom('\u0000', '\ud83d', '\ude00', '🙂', 'a')),
  maxLength: 40,
})

/** Whether UTF-8 gives `text` back as it was: what a database's text keeps. */
const survivesUtf8 = (text: string) =>
  Buffer.from(text, 'utf8').toString('utf8') === text && !text.includes('\u0000')

describe('isStorableId', () => {
  it.each([
    ['plain text', 'deploy-42', true],
    ['a surrogate pair', 'ship 🚀', true],
    ['the empty string', '', true],
    ['a NUL', 'a\u0000b', false],
    ['an unpaired high surrogate at the end', 'a\ud83d', false],
    ['an unpaired low surrogate first', '\ude00a', false],
    ['a pair written backwards', '\ude00\ud83d', false],
    ['a pair then an unpaired high surrogate', '🙂\ud83d', false],
  ])('%s: %s', (_name, text, storable) => {
    expect(isStorableId(text)).toBe(storable)
  })

  it('is true exactly when UTF-8 keeps the text as given and it holds no NUL', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(isStorableId(text)).toBe(survivesUtf8(text))
      }),
    )
  })
})

describe('toStorableId', () => {
  it('makes NULs and unpaired surrogates U+FFFD, and keeps pairs', () => {
    expect(toStorableId('a\u0000b\ud83dc🙂\ude00', 100)).toBe('a\ufffdb\ufffdc🙂\ufffd')
  })

  it('cuts at the limit, never inside a pair', () => {
    expect(toStorableId('ab🙂', 3)).toBe('ab')
    expect(toStorableId('ab🙂', 4)).toBe('ab🙂')
    expect(toStorableId('abcd', 3)).toBe('abc')
    // A NUL made U+FFFD at the cut stays: only a pair is never split.
    expect(toStorableId('ab\u0000c', 3)).toBe('ab\ufffd')
  })

  it('gives storable text within the limit, and storable text within it unchanged', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 1, max: 50 }), (text, max) => {
        const kept = toStorableId(text, max)
        expect(isStorableId(kept)).toBe(true)
        expect(kept.length).toBeLessThanOrEqual(max)
        if (isStorableId(text) && text.length <= max) expect(kept).toBe(text)
      }),
    )
  })
})
