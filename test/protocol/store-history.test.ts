import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  MAX_HISTORY_LIMIT,
  digestOf,
  historyOf,
  matchesQuery,
  parseEventRow,
  readHistoryQuery,
} from '../../src/protocol/store/history.js'
import { CorruptRowError } from '../../src/protocol/store/rows.js'
import type { AskRecord } from '../../src/protocol/store/types.js'
import { canonicalQuestions } from '../../src/vocabulary/index.js'

/** The record of an ask (src/protocol/store/history.ts), built from a row and its kept events. */

const questions = [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }] }]
const ana = { id: 'ana', via: 'web' }
const bob = { id: 'bob', via: 'terminal' }
const pending: AskRecord = {
  askId: 'a1',
  questions,
  ownerSeamId: 's1',
  startedAt: 10,
  state: 'pending',
}

describe('readHistoryQuery', () => {
  it('defaults the limit and keeps only the fields given', () => {
    expect(readHistoryQuery({})).toStrictEqual({ limit: 50 })
    expect(readHistoryQuery({ askId: 'a', key: 'k', agentId: 'g', limit: 1 })).toStrictEqual({
      limit: 1,
      askId: 'a',
      key: 'k',
      agentId: 'g',
    })
    expect(readHistoryQuery({ limit: MAX_HISTORY_LIMIT }).limit).toBe(MAX_HISTORY_LIMIT)
  })

  it.each([0, -1, 1.5, MAX_HISTORY_LIMIT + 1, Number.NaN])('refuses limit %s', (limit) => {
    expect(() => readHistoryQuery({ limit })).toThrow(
      new TypeError(`history: limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}`),
    )
  })

  it.each(['askId', 'key', 'agentId'])('refuses a %s that is not text', (field) => {
    expect(() => readHistoryQuery({ [field]: 5 } as never)).toThrow(
      new TypeError(`history: ${field} must be a string`),
    )
  })

  it.each(['askId', 'key', 'agentId'])(
    'refuses a %s with a NUL or an unpaired surrogate: no ask holds one',
    (field) => {
      for (const value of ['a\u0000', 'a\ud800']) {
        expect(() => readHistoryQuery({ [field]: value })).toThrow(
          new TypeError(`history: ${field} must not hold a NUL or an unpaired surrogate`),
        )
      }
      expect(readHistoryQuery({ [field]: 'a🙂' })).toMatchObject({ [field]: 'a🙂' })
    },
  )
})

describe('matchesQuery', () => {
  const record: AskRecord = { ...pending, key: 'k', agentId: 'g' }
  it('matches every field given, and anything when none is', () => {
    expect(matchesQuery(record, {})).toBe(true)
    expect(matchesQuery(record, { askId: 'a1', key: 'k', agentId: 'g' })).toBe(true)
    expect(matchesQuery(record, { askId: 'a2' })).toBe(false)
    expect(matchesQuery(record, { key: 'other' })).toBe(false)
    expect(matchesQuery(record, { agentId: 'other' })).toBe(false)
    expect(matchesQuery(record, { askId: 'a1', key: 'other' })).toBe(false)
  })
})

describe('parseEventRow', () => {
  it('reads an event with by and detail as JSON text or parsed, and a time as text', () => {
    expect(parseEventRow({ at: 5, type: 'presented' })).toStrictEqual({ at: 5, type: 'presented' })
    expect(
      parseEventRow({ at: '5', type: 'vote', by: JSON.stringify(ana), detail: '{"n":1}' }),
    ).toStrictEqual({ at: 5, type: 'vote', by: ana, detail: { n: 1 } })
    expect(
      parseEventRow({ at: 6, type: 'refused', by: ana, detail: { reason: 'x' } }),
    ).toStrictEqual({ at: 6, type: 'refused', by: ana, detail: { reason: 'x' } })
    expect(parseEventRow({ at: 7, type: 'notified', by: null, detail: 'null' })).toStrictEqual({
      at: 7,
      type: 'notified',
    })
  })

  it.each<[string, Record<string, unknown>, string]>([
    ['a time that is not a number', { at: 'soon', type: 'vote' }, 'not an event of an ask'],
    ['a time that is not finite', { at: Infinity, type: 'vote' }, 'not an event of an ask'],
    ['a time of another type', { at: true, type: 'vote' }, 'not an event of an ask'],
    ['an unknown type', { at: 1, type: 'settled' }, 'not an event of an ask'],
    ['a by that is not JSON', { at: 1, type: 'vote', by: '{' }, "an event's by is not JSON"],
    [
      'a detail that is not JSON',
      { at: 1, type: 'vote', detail: '{' },
      "an event's detail is not JSON",
    ],
    [
      'a by that is not a responder',
      { at: 1, type: 'vote', by: { id: 'ana' } },
      "an event's by is not a responder",
    ],
    [
      'a detail that is a list',
      { at: 1, type: 'vote', detail: '[1]' },
      "an event's detail is not an object",
    ],
    [
      'a detail that is a number',
      { at: 1, type: 'vote', detail: 3 },
      "an event's detail is not an object",
    ],
  ])('refuses %s', (_name, row, message) => {
    let caught: unknown
    try {
      parseEventRow(row as never)
    } catch (error: unknown) {
      caught = error
    }
    expect(caught).toBeInstanceOf(CorruptRowError)
    expect((caught as Error).message).toBe(message)
  })
})

describe('historyOf', () => {
  it('digests the canonical questions', async () => {
    const expected = createHash('sha256').update(canonicalQuestions(questions)).digest('hex')
    expect(await digestOf(questions)).toBe(`sha256:${expected}`)
    expect(expected).toHaveLength(64)
  })

  it('a pending ask: admitted first, then the kept events by time, stable within a millisecond', async () => {
    const history = await historyOf(pending, [
      { at: 30, type: 'vote', by: bob },
      { at: 20, type: 'presented' },
      { at: 30, type: 'refused', by: ana },
    ])
    expect(history).toStrictEqual({
      askId: 'a1',
      questions,
      digest: await digestOf(questions),
      startedAt: 10,
      events: [
        { at: 10, type: 'admitted' },
        { at: 20, type: 'presented' },
        { at: 30, type: 'vote', by: bob },
        { at: 30, type: 'refused', by: ana },
      ],
    })
  })

  it('a settled ask: settled at its time after the events of that millisecond, by its last responder', async () => {
    const settled: AskRecord = {
      ...pending,
      key: 'k',
      agentId: 'g',
      deadline: 100,
      state: 'settled',
      settledAt: 40,
      outcome: { status: 'answered', answer: { answers: [] }, by: [ana, bob] },
    }
    const history = await historyOf(settled, [
      { at: 50, type: 'notified' },
      { at: 40, type: 'vote', by: bob },
    ])
    expect(history.events).toStrictEqual([
      { at: 10, type: 'admitted', detail: { agentId: 'g' } },
      { at: 40, type: 'vote', by: bob },
      { at: 40, type: 'settled', by: bob, detail: { status: 'answered' } },
      { at: 50, type: 'notified' },
    ])
    expect(history).toMatchObject({ key: 'k', agentId: 'g', deadline: 100, settledAt: 40 })
    expect(history.outcome).toStrictEqual({
      status: 'answered',
      answer: { answers: [] },
      by: [ana, bob],
    })
  })

  it('a rejection nobody gave: settled with its code, by nobody', async () => {
    const error = { code: 'ASK_TIMEOUT' as const, message: 'late' }
    const history = await historyOf(
      { ...pending, state: 'settled', settledAt: 60, outcome: { status: 'rejected', error } },
      [],
    )
    expect(history.events[1]).toStrictEqual({
      at: 60,
      type: 'settled',
      detail: { status: 'rejected', code: 'ASK_TIMEOUT' },
    })
    expect(history.outcome).toStrictEqual({ status: 'rejected', error, by: [] })
  })
})
