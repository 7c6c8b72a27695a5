import { describe, expect, it } from 'vitest'
import {
  UserQuestionError,
  createUserQuestions,
  validateRequest,
} from '../../src/protocol/index.js'
import type { AskUserQuestionRequest } from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { proxyThrowingOn, revokedProxy, throwingGetters } from './hostile-values.js'

// Issue 10, item 3: throwing getters on request fields, Proxies whose get
// throws, revoked Proxies, sparse arrays and a patched `aborted` getter
// rejected with raw TypeErrors; sparse options passed validation (and then
// broke the web console). Item 8: look-alike labels.

const question = () => ({ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }] })

/** The coded error validateRequest throws for `request`; fails the test on anything else. */
function refusal(request: unknown): UserQuestionError {
  try {
    validateRequest(request)
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(UserQuestionError)
    return error as UserQuestionError
  }
  throw new Error('validateRequest accepted the request')
}

/** An array of `length` with only the given indices set: `sparse(2, { 1: q })` is `[, q]`. */
function sparse(length: number, entries: Record<number, unknown>): unknown[] {
  const array = new Array<unknown>(length)
  for (const [index, value] of Object.entries(entries)) array[Number(index)] = value
  return array
}

function withGetter(target: object, key: string): object {
  Object.defineProperty(target, key, {
    get() {
      throw new TypeError(`${key} throws`)
    },
  })
  return target
}

describe('a field that cannot be read is INVALID_REQUEST naming it', () => {
  it.each([
    ['questions', () => throwingGetters(['questions']), 'questions'],
    ['agent', () => withGetter({ questions: [question()] }, 'agent'), 'agent'],
    ['signal', () => withGetter({ questions: [question()] }, 'signal'), 'signal'],
    ['timeoutMs', () => withGetter({ questions: [question()] }, 'timeoutMs'), 'timeoutMs'],
    ['key', () => withGetter({ questions: [question()] }, 'key'), 'key'],
    [
      'a question id',
      () => ({ questions: [withGetter({ question: 'Q?' }, 'id')] }),
      'questions[0].id',
    ],
    [
      'a question text',
      () => ({ questions: [withGetter({ id: 'a' }, 'question')] }),
      'questions[0].question',
    ],
    [
      'options',
      () => ({ questions: [withGetter({ id: 'a', question: 'Q?' }, 'options')] }),
      'questions[0].options',
    ],
    [
      'a label',
      () => ({ questions: [{ id: 'a', question: 'Q?', options: [throwingGetters(['label'])] }] }),
      'questions[0].options[0].label',
    ],
    [
      'intent.approve',
      () => ({
        questions: [
          {
            ...question(),
            detail: 'plan',
            intent: withGetter({ kind: 'plan-review' }, 'approve'),
          },
        ],
      }),
      'questions[0].intent.approve',
    ],
    [
      'an element of questions',
      () => ({ questions: proxyThrowingOn([question()], '0') }),
      'questions[0]',
    ],
    [
      'the length of questions',
      () => ({ questions: proxyThrowingOn([], 'length') }),
      'questions.length',
    ],
  ])('%s', (_name, make, field) => {
    const error = refusal(make())
    expect(error.code).toBe('INVALID_REQUEST')
    expect(error.details?.field).toBe(field)
    expect(error.message).toContain(field)
  })

  it('a request that is a Proxy whose get throws names the first field read', () => {
    const error = refusal(proxyThrowingOn({ questions: [question()] }))
    expect(error.code).toBe('INVALID_REQUEST')
    expect(error.details?.field).toBe('questions')
  })

  it.each([
    ['the request', () => revokedProxy(), 'request'],
    ['questions', () => ({ questions: revokedProxy() }), 'questions'],
    ['a question', () => ({ questions: [revokedProxy()] }), 'questions[0]'],
    [
      'an option',
      () => ({ questions: [{ ...question(), options: [revokedProxy()] }] }),
      'questions[0].options[0]',
    ],
    ['the signal', () => ({ questions: [question()], signal: revokedProxy() }), 'signal.aborted'],
  ])('a revoked Proxy as %s is INVALID_REQUEST', (_name, make, field) => {
    const error = refusal(make())
    expect(error.code).toBe('INVALID_REQUEST')
    expect(error.details?.field).toBe(field)
  })

  it('a real AbortSignal with a patched aborted getter is INVALID_REQUEST naming signal.aborted', () => {
    const signal = withGetter(new AbortController().signal, 'aborted')
    const error = refusal({ questions: [question()], signal })
    expect(error.code).toBe('INVALID_REQUEST')
    expect(error.details?.field).toBe('signal.aborted')
  })

  it('an agent the caller check cannot read is INVALID_REQUEST naming agent', () => {
    const agent = proxyThrowingOn({ id: 'main' })
    try {
      validateRequest(
        { questions: [question()], agent },
        { checkCaller: (value) => void (value as { id: string }).id },
      )
      expect.unreachable()
    } catch (error: unknown) {
      expect(error).toBeInstanceOf(UserQuestionError)
      expect((error as UserQuestionError).details).toEqual({ field: 'agent' })
    }
  })

  it('reads each field once (a getter that answers differently on a second read cannot slip through)', () => {
    let reads = 0
    const item = {
      question: 'Q?',
      get id() {
        reads += 1
        return reads === 1 ? 'a' : 42
      },
    }
    const { questions } = validateRequest({ questions: [item] })
    expect(questions[0]?.id).toBe('a')
    expect(reads).toBe(1)
  })
})

describe('a hole in a sparse array is INVALID_REQUEST naming it', () => {
  it.each([
    ['[, q]', () => sparse(2, { 1: question() }), 'questions[0]'],
    ['[q, , q]', () => sparse(3, { 0: question(), 2: { ...question(), id: 'b' } }), 'questions[1]'],
    ['new Array(3)', () => new Array(3), 'questions[0]'],
  ])('questions %s', (_name, make, field) => {
    const error = refusal({ questions: make() })
    expect(error.code).toBe('INVALID_REQUEST')
    expect(error.details).toMatchObject({ field, rule: 'sparse-array' })
  })

  it('sparse options [, { label: "Blue" }]', () => {
    const error = refusal({
      questions: [{ id: 'c', question: 'Colour?', options: sparse(2, { 1: { label: 'Blue' } }) }],
    })
    expect(error.code).toBe('INVALID_REQUEST')
    expect(error.details).toMatchObject({
      questionId: 'c',
      field: 'questions[0].options[0]',
      rule: 'sparse-array',
    })
  })

  it('the seam rejects a sparse ask and never presents it', async () => {
    const seam = createUserQuestions()
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const request = {
      questions: [{ id: 'c', question: 'Colour?', options: sparse(2, { 1: { label: 'Blue' } }) }],
    } as unknown as AskUserQuestionRequest
    await expect(seam.ask(request)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    expect(provider.calls).toHaveLength(0)
    expect(seam.pending()).toEqual([])
    await seam.close()
  })
})

describe('labels that display the same are one label twice', () => {
  const labelsOf = (...labels: string[]) => ({
    questions: [{ id: 'c', question: 'Colour?', options: labels.map((label) => ({ label })) }],
  })

  it.each([
    ['a zero-width space', 'Blue', 'Bl\u200Bue'],
    ['a zero-width joiner', 'Blue', 'Blue\u200D'],
    ['a no-break space', 'Light blue', 'Light\u00A0blue'],
    ['a narrow no-break space', 'Light blue', 'Light\u202Fblue'],
    ['a soft hyphen', 'Blue', 'Bl\u00ADue'],
    ['full-width letters', 'Blue', '\uFF22\uFF4C\uFF55\uFF45'],
    ['a trailing space', 'Blue', 'Blue '],
    ['a doubled space', 'Light blue', 'Light  blue'],
    ['a byte-order mark', 'Blue', '\uFEFFBlue'],
    ['a variation selector', 'Blue', 'Blue\uFE0F'],
    ['composed and decomposed accents', 'Caf\u00E9', 'Cafe\u0301'],
  ])('%s', (_name, first, second) => {
    const error = refusal(labelsOf(first, second))
    expect(error.code).toBe('INVALID_REQUEST')
    expect(error.details).toMatchObject({
      questionId: 'c',
      field: 'questions[0].options[1].label',
      rule: 'look-alike-label',
    })
  })

  it('keeps labels that differ visibly, and the same label in two questions', () => {
    expect(() => validateRequest(labelsOf('Blue', 'blue', 'Blue!', 'Bleu'))).not.toThrow()
    expect(() =>
      validateRequest({
        questions: [
          { id: 'a', question: 'A?', options: [{ label: 'Blue' }] },
          { id: 'b', question: 'B?', options: [{ label: 'Bl\u200Bue' }] },
        ],
      }),
    ).not.toThrow()
  })

  it('an exact duplicate keeps its own message and field', () => {
    const error = refusal(labelsOf('Blue', 'Blue'))
    expect(error.message).toContain('offers the label "Blue" twice')
    expect(error.details?.rule).toBeUndefined()
  })
})

describe('bidirectional controls are refused in labels and ids', () => {
  it.each([
    '\u202A',
    '\u202B',
    '\u202C',
    '\u202D',
    '\u202E',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
  ])('U+%s', (control) => {
    const inLabel = refusal({
      questions: [{ id: 'a', question: 'Q?', options: [{ label: `Ap${control}evorp` }] }],
    })
    expect(inLabel.details).toMatchObject({
      field: 'questions[0].options[0].label',
      rule: 'bidi-control',
    })
    const inId = refusal({ questions: [{ id: `a${control}b`, question: 'Q?' }] })
    expect(inId.details).toMatchObject({ field: 'questions[0].id', rule: 'bidi-control' })
  })

  it('right-to-left text without controls is accepted', () => {
    expect(() =>
      validateRequest({
        questions: [
          {
            id: 'lang',
            question: 'Language?',
            options: [{ label: 'עברית' }, { label: 'العربية' }],
          },
        ],
      }),
    ).not.toThrow()
  })
})
