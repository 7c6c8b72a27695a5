import { describe, expect, it } from 'vitest'
import {
  canonicalJson,
  canonicalQuestions,
  differenceOf,
  sameQuestions,
} from '../../src/vocabulary/index.js'
import type { AskUserQuestionItem } from '../../src/vocabulary/index.js'

/** "The same questions" (src/vocabulary/canonical.ts): the text a key's questions are compared by. */

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves undefined fields out', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: undefined, x: 2 }], c: false } })).toBe(
      '{"a":{"c":false,"d":[{"x":2,"z":1}]},"b":1}',
    )
  })

  it('keeps multiSelect: false, which only questions treat as a default', () => {
    expect(canonicalJson({ multiSelect: false })).toBe('{"multiSelect":false}')
  })

  it('writes null for what JSON cannot hold', () => {
    expect(canonicalJson(undefined)).toBe('null')
    expect(canonicalJson(null)).toBe('null')
    expect(canonicalJson('text')).toBe('"text"')
  })
})

describe('canonicalQuestions and sameQuestions', () => {
  const a = {
    id: 'q',
    question: 'Which?',
    options: [{ label: 'x', description: undefined }, { label: 'y' }],
  } as AskUserQuestionItem
  const reordered = {
    question: 'Which?',
    multiSelect: false,
    options: [{ label: 'x' }, { label: 'y' }],
    id: 'q',
  } as AskUserQuestionItem

  it('ignores key order, undefined fields and multiSelect: false', () => {
    expect(canonicalQuestions([a])).toBe(
      '[{"id":"q","options":[{"label":"x"},{"label":"y"}],"question":"Which?"}]',
    )
    expect(canonicalQuestions([reordered])).toBe(canonicalQuestions([a]))
    expect(sameQuestions([a], [reordered])).toBe(true)
  })

  it('tells apart multiSelect: true, another option order, another question', () => {
    expect(sameQuestions([a], [{ ...a, multiSelect: true }])).toBe(false)
    expect(canonicalQuestions([{ ...a, multiSelect: true }])).toContain('"multiSelect":true')
    expect(sameQuestions([a], [{ ...a, options: [{ label: 'y' }, { label: 'x' }] }])).toBe(false)
    expect(sameQuestions([a], [a, a])).toBe(false)
    expect(sameQuestions([a], [{ ...a, question: 'What?' }])).toBe(false)
  })

  it('is the same batch when it is the same array', () => {
    const batch = [a]
    expect(sameQuestions(batch, batch)).toBe(true)
  })
})

describe('differenceOf: what a key stands for', () => {
  const questions: AskUserQuestionItem[] = [{ id: 'q', question: 'Which?' }]
  const held = { questions, policy: { answerers: ['ann', 'role:ops'], approvals: 2 } }

  it('is the same ask whatever the order of answerers or an entry written twice', () => {
    expect(differenceOf(held, { ...held })).toBeUndefined()
    expect(
      differenceOf(held, {
        questions,
        policy: { answerers: ['role:ops', 'ann', 'ann'], approvals: 2 },
      }),
    ).toBeUndefined()
    expect(differenceOf({ questions }, { questions, policy: undefined })).toBeUndefined()
  })

  it('names the questions first, then who may answer or how many approve', () => {
    expect(differenceOf(held, { ...held, questions: [{ id: 'q', question: 'What?' }] })).toBe(
      'questions',
    )
    expect(differenceOf(held, { questions })).toBe('policy')
    expect(differenceOf(held, { questions, policy: { answerers: ['ann'], approvals: 2 } })).toBe(
      'policy',
    )
    expect(
      differenceOf(held, { questions, policy: { answerers: ['ann', 'role:ops'], approvals: 3 } }),
    ).toBe('policy')
  })
})
