import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  CorruptRowError,
  notifyEach,
  parseNotificationRow,
  parseAskRecord,
  parseOutcome,
  readAdmission,
  readSettlement,
  readVote,
  warnCorruptRowOnce,
} from '../../src/protocol/store/rows.js'
import { settle } from '../support/settle.js'
import { collectingUncaught } from '../support/uncaught.js'

/**
 * What a store hands back, read as untrusted (src/protocol/store/rows.ts):
 * each malformed field is a CorruptRowError that says what is wrong, and a
 * well-formed row is read back as it was written.
 */

const question = { id: 'q', question: 'Go?', options: [{ label: 'Yes' }] }
const review = {
  id: 'plan',
  question: 'Proceed?',
  detail: 'd',
  options: [{ label: 'Approve' }],
  intent: { kind: 'plan-review', approve: 'Approve' },
}
const row = (fields: Record<string, unknown> = {}) => ({
  askId: 'a1',
  questions: [question],
  ownerSeamId: 's1',
  startedAt: 10,
  state: 'pending',
  ...fields,
})
const answered = { status: 'answered', answer: { answers: [{ id: 'q', selected: ['Yes'] }] } }
const approved = {
  status: 'answered',
  answer: { answers: [{ id: 'plan', selected: ['Approve'] }] },
}
const ana = { id: 'ana', via: 'web' }

function corrupt(run: () => unknown): string {
  try {
    run()
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(CorruptRowError)
    expect((error as Error).name).toBe('CorruptRowError')
    return (error as Error).message
  }
  return expect.fail('expected a CorruptRowError')
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('parseOutcome', () => {
  it('reads an answer and a rejection, with who settled them', () => {
    expect(parseOutcome(answered)).toStrictEqual(answered)
    expect(parseOutcome({ ...answered, by: [ana] })).toStrictEqual({ ...answered, by: [ana] })
    const rejected = { status: 'rejected', error: { code: 'ASK_TIMEOUT', message: 'late' } }
    expect(parseOutcome(rejected)).toStrictEqual(rejected)
    const detailed = {
      status: 'rejected',
      error: { code: 'ASK_ABORTED', message: 'm', details: { reason: 'owner-gone' } },
    }
    expect(parseOutcome(detailed)).toStrictEqual(detailed)
  })

  it.each<[string, unknown, string]>([
    ['not an object', 'answered', 'outcome is not an object'],
    ['a list', [answered], 'outcome is not an object'],
    ['null', null, 'outcome is not an object'],
    [
      'an answer without answers',
      { status: 'answered', answer: {} },
      'an answered outcome has no answers array',
    ],
    [
      'an answer that is not an object',
      { status: 'answered', answer: [] },
      'an answered outcome has no answers array',
    ],
    ['a rejection without error', { status: 'rejected' }, 'a rejected outcome has no valid error'],
    [
      'a rejection with a code that is not text',
      { status: 'rejected', error: { code: 1, message: 'm' } },
      'a rejected outcome has no valid error',
    ],
    [
      'a rejection with an unknown code',
      { status: 'rejected', error: { code: 'NOPE', message: 'm' } },
      'a rejected outcome has no valid error',
    ],
    [
      'a rejection without message',
      { status: 'rejected', error: { code: 'ASK_TIMEOUT' } },
      'a rejected outcome has no valid error',
    ],
    [
      'a rejection with details that are a list',
      { status: 'rejected', error: { code: 'ASK_TIMEOUT', message: 'm', details: [] } },
      'a rejected outcome has no valid error',
    ],
    ['another status', { status: 'pending' }, 'outcome status is neither answered nor rejected'],
    ['a by that is not a list', { ...answered, by: ana }, 'outcome.by is not a list'],
    [
      'a by holding a non-responder',
      { ...answered, by: [{ id: 'ana' }] },
      'outcome.by holds something that is not a responder',
    ],
  ])('refuses %s', (_name, value, message) => {
    expect(corrupt(() => parseOutcome(value))).toBe(message)
  })
})

describe('parseAskRecord', () => {
  it('reads a pending row with only what it must have', () => {
    expect(parseAskRecord(row({ extra: 1 }))).toStrictEqual({
      askId: 'a1',
      questions: [question],
      ownerSeamId: 's1',
      startedAt: 10,
      state: 'pending',
    })
  })

  it('reads every optional field, and a settled row', () => {
    const record = parseAskRecord(
      row({
        key: 'k',
        agentId: 'agent',
        deadline: 99,
        traceContext: { traceparent: 't' },
        questions: [review],
        policy: { answerers: ['ana'], approvals: 2 },
        state: 'settled',
        outcome: approved,
        settledAt: 50,
      }),
    )
    expect(record).toStrictEqual({
      askId: 'a1',
      questions: [review],
      ownerSeamId: 's1',
      startedAt: 10,
      state: 'settled',
      key: 'k',
      agentId: 'agent',
      deadline: 99,
      traceContext: { traceparent: 't' },
      policy: { answerers: ['ana'], approvals: 2 },
      outcome: approved,
      settledAt: 50,
    })
  })

  it('drops a malformed trace context and a null policy, refusing nothing for them', () => {
    const record = parseAskRecord(row({ traceContext: 'garbage', policy: null }))
    expect(record).not.toHaveProperty('traceContext')
    expect(record).not.toHaveProperty('policy')
  })

  it.each<[string, unknown, string]>([
    ['a row that is not an object', 'row', 'row is not an object'],
    ['a list', [row()], 'row is not an object'],
    ['no askId', row({ askId: undefined }), 'row has no askId'],
    ['an empty askId', row({ askId: '' }), 'row has no askId'],
    ['a key that is not text', row({ key: 1 }), 'ask a1: key is not a string'],
    ['an agentId that is not text', row({ agentId: 1 }), 'ask a1: agentId is not a string'],
    ['no ownerSeamId', row({ ownerSeamId: undefined }), 'ask a1: ownerSeamId is not a string'],
    ['a startedAt that is text', row({ startedAt: '10' }), 'ask a1: startedAt is not a time'],
    [
      'a startedAt that is not finite',
      row({ startedAt: Infinity }),
      'ask a1: startedAt is not a time',
    ],
    ['a deadline that is NaN', row({ deadline: Number.NaN }), 'ask a1: deadline is not a time'],
    ['a deadline that is text', row({ deadline: '5' }), 'ask a1: deadline is not a time'],
    ['a settledAt that is text', row({ settledAt: '5' }), 'ask a1: settledAt is not a time'],
    [
      'questions that are not a list',
      row({ questions: question }),
      expect.stringMatching(/^ask a1: questions are not valid questions: /),
    ],
    [
      'no questions',
      row({ questions: [] }),
      expect.stringMatching(/^ask a1: questions are not valid questions: /),
    ],
    [
      'a question without an id',
      row({ questions: [question, { question: 'x' }] }),
      expect.stringMatching(/^ask a1: questions are not valid questions: /),
    ],
    [
      'a question without text',
      row({ questions: [{ id: 'q' }] }),
      expect.stringMatching(/^ask a1: questions are not valid questions: /),
    ],
    [
      'a question that is null',
      row({ questions: [null] }),
      expect.stringMatching(/^ask a1: questions are not valid questions: /),
    ],
    ['a policy that is not one', row({ policy: { approvals: 2 } }), 'policy is not a policy'],
    ['a policy that is not an object', row({ policy: 'anyone' }), 'policy is not a policy'],
    [
      'a settled row without outcome',
      row({ state: 'settled', settledAt: 5 }),
      'outcome is not an object',
    ],
    [
      'a settled row without settledAt',
      row({ state: 'settled', outcome: answered }),
      'ask a1: a settled ask has no settledAt',
    ],
    ['an unknown state', row({ state: 'gone' }), 'ask a1: state is neither pending nor settled'],
  ])('refuses %s', (_name, value, message) => {
    expect(corrupt(() => parseAskRecord(value))).toEqual(message)
  })

  // The questions and the answer are checked as the seam checked them before it wrote them.
  it.each([
    [
      'two questions with one id',
      row({ questions: [question, question] }),
      /^ask a1: questions are not valid questions: .*"q"/,
    ],
    [
      'options that are not a list',
      row({ questions: [{ ...question, options: 'Yes' }] }),
      /^ask a1: questions are not valid questions: /,
    ],
    [
      'a multiSelect that is text',
      row({ questions: [{ ...question, multiSelect: 'yes' }] }),
      /^ask a1: questions are not valid questions: /,
    ],
    [
      'a plan review without its plan',
      row({ questions: [{ ...review, detail: undefined }] }),
      /^ask a1: questions are not valid questions: .*no detail/,
    ],
    [
      'an answer to a question not asked',
      row({
        state: 'settled',
        settledAt: 5,
        outcome: { status: 'answered', answer: { answers: [{ id: 'x', selected: [] }] } },
      }),
      /^ask a1: the answer does not answer its questions: /,
    ],
    [
      'an answer that picks no option of its question',
      row({
        state: 'settled',
        settledAt: 5,
        outcome: {
          status: 'answered',
          answer: { answers: [{ id: 'q', selected: ['DROP TABLE'] }] },
        },
      }),
      /^ask a1: the answer does not answer its questions: /,
    ],
    [
      'an answer item that is null',
      row({
        state: 'settled',
        settledAt: 5,
        outcome: { status: 'answered', answer: { answers: [null] } },
      }),
      /^ask a1: the answer does not answer its questions: /,
    ],
    [
      'an answer that leaves a question out',
      row({
        state: 'settled',
        settledAt: 5,
        outcome: { status: 'answered', answer: { answers: [] } },
      }),
      /^ask a1: the answer does not answer its questions: /,
    ],
  ])('refuses %s', (_name, value, message) => {
    expect(corrupt(() => parseAskRecord(value))).toMatch(message)
  })

  it('reads a stored answer back in the canonical encoding', () => {
    const questions = [
      question,
      { id: 'm', question: 'Which?', multiSelect: true, options: [{ label: 'A' }, { label: 'B' }] },
    ]
    const stored = {
      answers: [
        { id: 'm', selected: ['B', 'A'] },
        { id: 'q', selected: ['Yes'] },
      ],
    }
    const record = parseAskRecord(
      row({
        questions,
        state: 'settled',
        settledAt: 5,
        outcome: { status: 'answered', answer: stored },
      }),
    )
    expect(record.outcome).toStrictEqual({
      status: 'answered',
      answer: {
        answers: [
          { id: 'q', selected: ['Yes'] },
          { id: 'm', selected: ['A', 'B'] },
        ],
      },
    })
  })
})

describe('reading what a store answered', () => {
  it('an admission: admitted as is, existing parsed, anything else corrupt', () => {
    const admitted = { status: 'admitted', record: 'not read' }
    expect(readAdmission(admitted)).toBe(admitted)
    expect(readAdmission({ status: 'existing', record: row({ extra: 1 }) })).toStrictEqual({
      status: 'existing',
      record: parseAskRecord(row()),
    })
    for (const odd of [undefined, null, {}, { status: 'maybe' }]) {
      expect(corrupt(() => readAdmission(odd))).toBe(
        'the store answered an admission with neither admitted nor existing',
      )
    }
    expect(corrupt(() => readAdmission({ status: 'existing', record: 'x' }))).toBe(
      'row is not an object',
    )
  })

  const settled = row({ state: 'settled', outcome: answered, settledAt: 20 })

  it('a settlement: the settled record, and whether this write won', () => {
    expect(readSettlement('a1', { record: settled, won: true })).toStrictEqual({
      record: parseAskRecord(settled),
      won: true,
    })
    expect(readSettlement('a1', { record: settled, won: 'yes' }).won).toBe(false)
    expect(readSettlement('a1', { record: settled }).won).toBe(false)
    expect(corrupt(() => readSettlement('a1', undefined))).toBe('ask a1 is not in the store')
    expect(corrupt(() => readSettlement('a1', { record: row(), won: true }))).toBe(
      'the store does not hold ask a1 as settled',
    )
    expect(corrupt(() => readSettlement('a1', null))).toBe('row is not an object')
  })

  it('a vote: counted or already voted with who gave it, settled as a settlement', () => {
    expect(readVote('a1', { status: 'counted', given: [ana] })).toStrictEqual({
      status: 'counted',
      given: [ana],
    })
    expect(readVote('a1', { status: 'already-voted', given: [] })).toStrictEqual({
      status: 'already-voted',
      given: [],
    })
    expect(readVote('a1', { status: 'settled', record: settled, won: true })).toStrictEqual({
      status: 'settled',
      record: parseAskRecord(settled),
      won: true,
    })
    expect(corrupt(() => readVote('a1', undefined))).toBe('ask a1 is not in the store')
    expect(corrupt(() => readVote('a1', null))).toBe(
      'the store answered a vote on ask a1 with an unknown status',
    )
    expect(corrupt(() => readVote('a1', { status: 'lost' }))).toBe(
      'the store answered a vote on ask a1 with an unknown status',
    )
    expect(corrupt(() => readVote('a1', { status: 'counted', given: 'ana' }))).toBe(
      'outcome.by is not a list',
    )
  })
})

describe('the stores’ helpers', () => {
  it('warns once per distinct corrupt row, naming the store', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const onCorrupt = warnCorruptRowOnce('sqlite')
    onCorrupt(new CorruptRowError('row a is bad'))
    onCorrupt(new CorruptRowError('row a is bad'))
    onCorrupt(new CorruptRowError('row b is bad'))
    expect(warn.mock.calls).toEqual([
      [
        'askseam/sqlite skipped a corrupt row: row a is bad',
        { type: 'AskseamStore', code: 'ASKSEAM_CORRUPT_ROW' },
      ],
      [
        'askseam/sqlite skipped a corrupt row: row b is bad',
        { type: 'AskseamStore', code: 'ASKSEAM_CORRUPT_ROW' },
      ],
    ])
  })

  it('hands a change to every listener, a throwing one surfacing later', async () => {
    const heard: string[] = []
    const thrown = new Error('listener bug')
    const listeners = new Set<(change: string) => void>([
      (change) => heard.push(`first ${change}`),
      () => {
        throw thrown
      },
      (change) => heard.push(`third ${change}`),
    ])
    await collectingUncaught(async (uncaught) => {
      notifyEach(listeners, 'c1')
      expect(heard).toEqual(['first c1', 'third c1'])
      expect(uncaught).toEqual([])
      await settle()
      expect(uncaught).toEqual([thrown])
    })
  })
})

describe('parseNotificationRow: what it says', () => {
  const row = { event_id: 'e1', ask_id: 'a1', holder: null, expires_at: null, ending: null }
  it('reads an absent expiry as none', () => {
    expect(parseNotificationRow({ ...row, expires_at: undefined })).toStrictEqual({
      eventId: 'e1',
      askId: 'a1',
    })
  })

  it('names the row it refuses', () => {
    expect(corrupt(() => parseNotificationRow({ ...row, event_id: 7 }))).toBe(
      'notification 7: no event or ask id',
    )
    expect(corrupt(() => parseNotificationRow({ ...row, ending: 'lost' }))).toBe(
      'notification e1: not a row of the notification ledger',
    )
  })
})
