import { describe, expect, it } from 'vitest'
import {
  MAX_KEY_LENGTH,
  UserQuestionError,
  checkNotAborted,
  validateRequest,
} from '../../src/vocabulary/index.js'
import { thrownBy } from '../support/controllable-provider.js'
import { planReview } from '../support/plan-review.js'

/**
 * validateRequest and checkNotAborted (src/vocabulary/validate.ts), field by
 * field: the exact error each malformed or unreadable field is, and what a
 * well-formed request keeps.
 */

const boom = new Error('boom')

/** `target` with `key` turned into a getter that throws {@link boom}. */
function throwingAt<T extends object>(target: T, key: string): T {
  Object.defineProperty(target, key, {
    enumerable: true,
    get() {
      throw boom
    },
  })
  return target
}

/** An array whose `length` reads as `length`. */
function withLength(items: unknown[], length: unknown): unknown[] {
  return new Proxy(items, {
    get: (target, key, receiver) =>
      key === 'length' ? length : (Reflect.get(target, key, receiver) as unknown),
  })
}

const signal = () => new AbortController().signal
const question = (overrides: Record<string, unknown> = {}) => ({
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres', description: 'relational' }, { label: 'SQLite' }],
  ...overrides,
})

describe('a field whose read throws is INVALID_REQUEST naming it, with the throw as cause', () => {
  it.each<[string, () => unknown, Record<string, unknown>]>([
    ['questions', () => throwingAt({}, 'questions'), { field: 'questions' }],
    [
      'questions.length',
      () => ({ questions: withLengthThrowing([question()]) }),
      { field: 'questions.length' },
    ],
    [
      'questions[0]',
      () => ({ questions: throwingAt([question()], '0') }),
      { field: 'questions[0]' },
    ],
    [
      'questions[0].id',
      () => ({ questions: [throwingAt(question(), 'id')] }),
      { field: 'questions[0].id' },
    ],
    [
      'questions[0].question',
      () => ({ questions: [throwingAt(question(), 'question')] }),
      { questionId: 'db', field: 'questions[0].question' },
    ],
    ...['detail', 'header', 'options', 'multiSelect', 'intent'].map(
      (key): [string, () => unknown, Record<string, unknown>] => [
        `questions[0].${key}`,
        () => ({ questions: [throwingAt(question(), key)] }),
        { questionId: 'db', field: `questions[0].${key}` },
      ],
    ),
    [
      'questions[0].options.length',
      () => ({ questions: [question({ options: withLengthThrowing([{ label: 'a' }]) })] }),
      { questionId: 'db', field: 'questions[0].options.length' },
    ],
    [
      'questions[0].options[1]',
      () => ({
        questions: [question({ options: throwingAt([{ label: 'a' }, { label: 'b' }], '1') })],
      }),
      { questionId: 'db', field: 'questions[0].options[1]' },
    ],
    ...['label', 'description'].map((key): [string, () => unknown, Record<string, unknown>] => [
      `questions[0].options[0].${key}`,
      () => ({ questions: [question({ options: [throwingAt({ label: 'a' }, key)] })] }),
      { questionId: 'db', field: `questions[0].options[0].${key}` },
    ]),
    ...['kind', 'approve'].map((key): [string, () => unknown, Record<string, unknown>] => [
      `questions[0].intent.${key}`,
      () => ({
        questions: [
          planReview({ intent: throwingAt({ kind: 'plan-review', approve: 'Approve' }, key) }),
        ],
      }),
      { questionId: 'plan', field: `questions[0].intent.${key}` },
    ]),
    ...['agent', 'signal', 'timeoutMs', 'key', 'answerers', 'approvals'].map(
      (key): [string, () => unknown, Record<string, unknown>] => [
        key,
        () => throwingAt({ questions: [question()] }, key),
        { field: key },
      ],
    ),
    ...['aborted', 'addEventListener', 'removeEventListener'].map(
      (key): [string, () => unknown, Record<string, unknown>] => [
        `signal.${key}`,
        () => ({
          questions: [question()],
          signal: throwingAt(
            { aborted: false, addEventListener: () => 0, removeEventListener: () => 0 },
            key,
          ),
        }),
        { field: `signal.${key}` },
      ],
    ),
  ])('%s', (field, request, details) => {
    const error = thrownBy(() => validateRequest(request()), 'INVALID_REQUEST')
    expect(error.message).toBe(`${field} could not be read`)
    expect(error.details).toStrictEqual(details)
    expect(error.cause).toBe(boom)
  })

  it('an element whose presence cannot be asked is unreadable too', () => {
    const questions = new Proxy([question()], {
      getOwnPropertyDescriptor() {
        throw boom
      },
    })
    const error = thrownBy(() => validateRequest({ questions }), 'INVALID_REQUEST')
    expect(error.message).toBe('questions[0] could not be read')
    expect(error.details).toStrictEqual({ field: 'questions[0]' })
    expect(error.cause).toBe(boom)
  })
})

function withLengthThrowing(items: unknown[]): unknown[] {
  return new Proxy(items, {
    get: (target, key, receiver) => {
      if (key === 'length') throw boom
      return Reflect.get(target, key, receiver) as unknown
    },
  })
}

describe('lists', () => {
  it.each([
    ['negative', -1],
    ['a fraction', 1.5],
    ['a string', '1'],
    ['beyond a safe integer', 2 ** 53],
  ])('a questions list whose length is %s has no usable length', (_name, length) => {
    const error = thrownBy(
      () => validateRequest({ questions: withLength([question()], length) }),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe('questions has no usable length')
    expect(error.details).toStrictEqual({ field: 'questions[0]' })
  })

  it('an options list with no usable length names the question', () => {
    const error = thrownBy(
      () => validateRequest({ questions: [question({ options: withLength([], -1) })] }),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe('questions[0].options has no usable length')
    expect(error.details).toStrictEqual({ questionId: 'db', field: 'questions[0].options[0]' })
  })

  it('an empty options list is a question without choices', () => {
    expect(
      validateRequest({ questions: [question({ options: [] })] }).questions[0]?.options,
    ).toEqual([])
  })

  it('a hole in the questions is refused, naming it', () => {
    const questions: unknown[] = [question()]
    questions[2] = question()
    const error = thrownBy(() => validateRequest({ questions }), 'INVALID_REQUEST')
    expect(error.message).toBe(
      'questions[1] is missing: questions is a sparse array with a hole there',
    )
    expect(error.details).toStrictEqual({ field: 'questions[1]', rule: 'sparse-array' })
  })

  it('a hole in the options is refused, naming the question', () => {
    const options: unknown[] = [{ label: 'a' }]
    options.length = 2
    const error = thrownBy(
      () => validateRequest({ questions: [question({ options })] }),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe(
      'questions[0].options[1] is missing: questions[0].options is a sparse array with a hole there',
    )
    expect(error.details).toStrictEqual({
      questionId: 'db',
      field: 'questions[0].options[1]',
      rule: 'sparse-array',
    })
  })

  it('a revoked Proxy is neither a request nor a list', () => {
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {})
      revoke()
      return proxy
    }
    expect(thrownBy(() => validateRequest(revoked()), 'INVALID_REQUEST').details).toStrictEqual({
      field: 'request',
    })
    const notList = thrownBy(() => validateRequest({ questions: revoked() }), 'INVALID_REQUEST')
    expect(notList.message).toBe('questions must be an array')
    const notQuestion = thrownBy(
      () => validateRequest({ questions: [revoked()] }),
      'INVALID_REQUEST',
    )
    expect(notQuestion.message).toBe('questions[0] must be an object')
  })
})

describe('exact refusals of malformed fields', () => {
  it.each<[string, Record<string, unknown>, string, Record<string, unknown>]>([
    [
      'an option that is not an object',
      { options: ['a'] },
      'questions[0].options[0] must be an object',
      { questionId: 'db', field: 'questions[0].options[0]' },
    ],
    [
      'a blank label',
      { options: [{ label: ' ' }] },
      'questions[0].options[0].label must be a non-blank string',
      { questionId: 'db', field: 'questions[0].options[0].label' },
    ],
    [
      'a description that is not a string',
      { options: [{ label: 'a', description: 1 }] },
      'questions[0].options[0].description must be a string',
      { questionId: 'db', field: 'questions[0].options[0].description' },
    ],
    [
      'a detail that is not a string',
      { detail: 1 },
      'questions[0].detail must be a string',
      { questionId: 'db', field: 'questions[0].detail' },
    ],
    [
      'a header that is not a string',
      { header: false },
      'questions[0].header must be a string',
      { questionId: 'db', field: 'questions[0].header' },
    ],
    [
      'options that are not a list',
      { options: 'a' },
      'questions[0].options must be an array',
      { questionId: 'db', field: 'questions[0].options' },
    ],
    [
      'a multiSelect that is not a boolean',
      { multiSelect: 'yes' },
      'questions[0].multiSelect must be a boolean',
      { questionId: 'db', field: 'questions[0].multiSelect' },
    ],
    [
      'an intent that is not an object',
      { intent: 'plan-review' },
      "questions[0].intent must be { kind: 'plan-review', approve: string }",
      { questionId: 'db', field: 'questions[0].intent' },
    ],
    [
      'a blank question',
      { question: '' },
      'questions[0].question must be a non-blank string',
      { questionId: 'db', field: 'questions[0].question' },
    ],
  ])('%s', (_name, overrides, message, details) => {
    const error = thrownBy(
      () => validateRequest({ questions: [question(overrides)] }),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe(message)
    expect(error.details).toStrictEqual(details)
  })

  it('a blank id and a repeated id', () => {
    const blank = thrownBy(
      () => validateRequest({ questions: [question({ id: '' })] }),
      'INVALID_REQUEST',
    )
    expect(blank.message).toBe('questions[0].id must be a non-blank string')
    expect(blank.details).toStrictEqual({ field: 'questions[0].id' })
    const twice = thrownBy(
      () => validateRequest({ questions: [question(), question()] }),
      'INVALID_REQUEST',
    )
    expect(twice.message).toBe('questions[1].id "db" is used by another question')
  })

  it('an empty questions list', () => {
    const error = thrownBy(() => validateRequest({ questions: [] }), 'EMPTY_QUESTIONS')
    expect(error.message).toBe('questions is empty: ask at least one question')
  })

  it.each([
    ['null', null],
    ['a string', 'abort'],
    ['a number', 1],
    [
      'without addEventListener',
      { aborted: false, addEventListener: 1, removeEventListener: () => 0 },
    ],
  ])('a signal that is %s', (_name, value) => {
    const error = thrownBy(
      () => validateRequest({ questions: [question()], signal: value }),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe('signal must be an AbortSignal')
    expect(error.details).toStrictEqual({ field: 'signal' })
  })
})

describe('labels and ids that display differently from their value', () => {
  it('refuses a bidirectional control in a label, naming the question', () => {
    const error = thrownBy(
      () => validateRequest({ questions: [question({ options: [{ label: 'safe\u202Eexe' }] })] }),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe(
      'questions[0].options[0].label holds a bidirectional override or isolate control character, which would make it display differently from its value',
    )
    expect(error.details).toStrictEqual({
      questionId: 'db',
      field: 'questions[0].options[0].label',
      rule: 'bidi-control',
    })
  })

  it('refuses a bidirectional isolate in an id', () => {
    const error = thrownBy(
      () => validateRequest({ questions: [question({ id: 'db\u2066' })] }),
      'INVALID_REQUEST',
    )
    expect(error.details).toStrictEqual({ field: 'questions[0].id', rule: 'bidi-control' })
  })

  it.each([
    ['full-width letters', 'Yes', 'Ｙｅｓ'],
    ['a zero-width space', 'Yes', 'Y\u200Bes'],
    ['leading space', 'Yes', ' Yes'],
    ['a run of spaces', 'Go on', 'Go   on'],
  ])('refuses two labels that differ only by %s', (_name, first, second) => {
    const error = thrownBy(
      () =>
        validateRequest({
          questions: [question({ options: [{ label: first }, { label: second }] })],
        }),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe(
      `questions[0] offers two labels that display the same ("${first}" and "${second}" differ only in invisible characters, spacing or compatibility forms)`,
    )
    expect(error.details).toStrictEqual({
      questionId: 'db',
      field: 'questions[0].options[1].label',
      rule: 'look-alike-label',
    })
  })

  it('keeps labels a space tells apart', () => {
    const { questions } = validateRequest({
      questions: [question({ options: [{ label: 'ab' }, { label: 'a b' }] })],
    })
    expect(questions[0]?.options?.map((option) => option.label)).toEqual(['ab', 'a b'])
  })
})

describe('what a valid request keeps', () => {
  it('keeps agent, key and policy only when given', () => {
    const agent = { id: 'a1' }
    const full = validateRequest({
      questions: [planReview()],
      agent,
      key: 'k',
      answerers: ['ana'],
      approvals: 2,
    })
    expect(full.agent).toBe(agent)
    expect(full.key).toBe('k')
    expect(full.policy).toStrictEqual({ answerers: ['ana'], approvals: 2 })
    const bare = validateRequest({ questions: [question()] })
    expect(Object.keys(bare)).toEqual(['questions'])
  })

  it('freezes the options of every question', () => {
    const { questions } = validateRequest({ questions: [question()] })
    expect(Object.isFrozen(questions[0]?.options)).toBe(true)
    expect(Object.isFrozen(questions[0]?.options?.[0])).toBe(true)
  })

  it.each([
    ['a number', 5],
    ['blank', '  '],
    ['one character too long', 'k'.repeat(MAX_KEY_LENGTH + 1)],
  ])('refuses a key that is %s', (_name, key) => {
    const error = thrownBy(
      () => validateRequest({ questions: [question()], key }),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe(
      `key must be a non-blank string of at most ${MAX_KEY_LENGTH} characters`,
    )
    expect(error.details).toStrictEqual({ field: 'key' })
  })

  // A database keeps neither as given: Postgres's text refuses a NUL, and UTF-8 has no unpaired surrogate.
  it.each([
    ['a NUL', 'deploy\u0000-42'],
    ['an unpaired high surrogate', 'deploy-\ud800'],
    ['an unpaired low surrogate', '\udc00deploy'],
  ])('refuses a key with %s, naming the key', (_name, key) => {
    const error = thrownBy(
      () => validateRequest({ questions: [question()], key }),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe(
      'key must not hold a NUL or an unpaired surrogate: no store keeps one as given',
    )
    expect(error.details).toStrictEqual({ field: 'key' })
  })

  it('takes a key with a surrogate pair (an emoji)', () => {
    expect(validateRequest({ questions: [question()], key: 'ship-🚀' }).key).toBe('ship-🚀')
  })

  it('takes a key of exactly the longest length, and one with spaces around', () => {
    const longest = 'k'.repeat(MAX_KEY_LENGTH)
    expect(validateRequest({ questions: [question()], key: longest }).key).toBe(longest)
    expect(validateRequest({ questions: [question()], key: ' k ' }).key).toBe(' k ')
  })
})

describe('the caller check', () => {
  it('runs with the agent, after the empty check and before the shape checks', () => {
    const seen: unknown[] = []
    const agent = { id: 'a1' }
    validateRequest({ questions: [question()], agent }, { checkCaller: (a) => seen.push(a) })
    expect(seen).toEqual([agent])
    thrownBy(
      () => validateRequest({ questions: [] }, { checkCaller: () => seen.push('called') }),
      'EMPTY_QUESTIONS',
    )
    expect(seen).toEqual([agent])
    const own = new UserQuestionError('not live', 'CALLER_NOT_LIVE')
    const thrown = thrownBy(
      () =>
        validateRequest(
          { questions: 'not a list' },
          {
            checkCaller: () => {
              throw own
            },
          },
        ),
      'CALLER_NOT_LIVE',
    )
    expect(thrown).toBe(own)
  })

  it('turns anything else it throws into an unreadable agent', () => {
    const error = thrownBy(
      () =>
        validateRequest(
          { questions: [question()] },
          {
            checkCaller: () => {
              throw boom
            },
          },
        ),
      'INVALID_REQUEST',
    )
    expect(error.message).toBe('agent could not be read')
    expect(error.details).toStrictEqual({ field: 'agent' })
    expect(error.cause).toBe(boom)
    // A thrown Proxy whose instanceof check throws is not one of ours either.
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw boom
        },
      },
    )
    const fromProxy = thrownBy(
      () =>
        validateRequest(
          { questions: [question()] },
          {
            checkCaller: () => {
              throw hostile
            },
          },
        ),
      'INVALID_REQUEST',
    )
    expect(fromProxy.cause).toBe(hostile)
  })
})

describe('checkNotAborted', () => {
  it('passes what is not an aborted signal, and leaves the rest to validateRequest', () => {
    for (const request of [
      null,
      'x',
      [],
      {},
      { signal: 'x' },
      { signal: null },
      { signal: signal() },
      { signal: { aborted: 'true' } },
    ]) {
      expect(() => checkNotAborted(request)).not.toThrow()
    }
  })

  it('throws ASK_ABORTED with the reason as cause', () => {
    const controller = new AbortController()
    const reason = new Error('stop')
    controller.abort(reason)
    const error = thrownBy(() => checkNotAborted({ signal: controller.signal }), 'ASK_ABORTED')
    expect(error.message).toBe('the caller aborted the ask before it started')
    expect(error.details).toStrictEqual({ reason: 'caller-aborted' })
    expect(error.cause).toBe(reason)
  })

  it('keeps a reason whose read throws as the cause', () => {
    const signalLike = throwingAt({ aborted: true }, 'reason')
    const error = thrownBy(() => checkNotAborted({ signal: signalLike }), 'ASK_ABORTED')
    expect(error.cause).toBe(boom)
  })

  it('names the signal or its aborted when they cannot be read', () => {
    const bySignal = thrownBy(() => checkNotAborted(throwingAt({}, 'signal')), 'INVALID_REQUEST')
    expect(bySignal.details).toStrictEqual({ field: 'signal' })
    expect(bySignal.message).toBe('signal could not be read')
    const byAborted = thrownBy(
      () => checkNotAborted({ signal: throwingAt({}, 'aborted') }),
      'INVALID_REQUEST',
    )
    expect(byAborted.details).toStrictEqual({ field: 'signal.aborted' })
  })
})
