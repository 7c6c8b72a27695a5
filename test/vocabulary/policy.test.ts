import { describe, expect, it } from 'vitest'
import {
  MAX_ANSWERERS,
  MAX_APPROVALS,
  MAX_RESPONDER_FIELD_LENGTH,
  MAX_RESPONDER_ROLES,
  admits,
  hasApproved,
  alreadyVoted,
  forbiddenAnswer,
  isApproval,
  readAnsweringResponder,
  readPolicy,
  readResponder,
} from '../../src/vocabulary/index.js'
import type { AskUserQuestionItem, Responder } from '../../src/vocabulary/index.js'
import { choice, thrownBy } from '../support/controllable-provider.js'

/** Who may answer (src/vocabulary/policy.ts), checked on its own: the seam tests go through it. */

const review: AskUserQuestionItem = {
  id: 'plan',
  question: 'Proceed?',
  detail: '1. deploy',
  options: [{ label: 'Approve' }, { label: 'Refuse' }],
  intent: { kind: 'plan-review', approve: 'Approve' },
}

const long = 'x'.repeat(MAX_RESPONDER_FIELD_LENGTH + 1)
const longest = 'x'.repeat(MAX_RESPONDER_FIELD_LENGTH)

describe('readPolicy: answerers', () => {
  it('is undefined when the request names neither answerers nor approvals', () => {
    expect(readPolicy(undefined, undefined, [choice('a')])).toBeUndefined()
  })

  it('copies a list of ids and roles, frozen', () => {
    const given = ['ana', 'role:ops', longest]
    const policy = readPolicy(given, undefined, [choice('a')])
    expect(policy).toStrictEqual({ answerers: ['ana', 'role:ops', longest] })
    expect(policy?.answerers).not.toBe(given)
    expect(Object.isFrozen(policy?.answerers)).toBe(true)
    expect(policy).not.toHaveProperty('approvals')
  })

  it.each([
    ['not a list', 'ana'],
    ['an empty list', []],
    ['a list one too long', Array.from({ length: MAX_ANSWERERS + 1 }, (_, i) => `id${i}`)],
  ])('refuses answerers that is %s, naming the field', (_name, answerers) => {
    const error = thrownBy(() => readPolicy(answerers, undefined, [choice('a')]), 'INVALID_REQUEST')
    expect(error.details).toStrictEqual({ field: 'answerers' })
    expect(error.message).toBe(
      `answerers must be a list of 1 to ${MAX_ANSWERERS} responder ids or "role:NAME"`,
    )
  })

  it('takes exactly MAX_ANSWERERS entries', () => {
    const answerers = Array.from({ length: MAX_ANSWERERS }, (_, i) => `id${i}`)
    expect(readPolicy(answerers, undefined, [choice('a')])?.answerers).toHaveLength(MAX_ANSWERERS)
  })

  it.each([
    ['a number', 7],
    ['blank', '  '],
    ['too long', long],
    ['a role with no name', 'role:'],
    ['a role with a blank name', 'role:  '],
    ['a role whose name is too long', `role:${long}`],
  ])('refuses an entry that is %s, naming its position', (_name, entry) => {
    const error = thrownBy(
      () => readPolicy(['ana', entry], undefined, [choice('a')]),
      'INVALID_REQUEST',
    )
    expect(error.details).toStrictEqual({ field: 'answerers' })
    expect(error.message).toBe(
      `answerers[1] must be a non-blank responder id or "role:NAME" of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
    )
  })

  it.each([
    ['a NUL', 'an\u0000a'],
    ['an unpaired surrogate', 'ana\ud800'],
    ['a role with an unpaired surrogate', 'role:\udc00ops'],
  ])('refuses an entry with %s: no responder has such an id', (_name, entry) => {
    const error = thrownBy(
      () => readPolicy(['ana', entry], undefined, [choice('a')]),
      'INVALID_REQUEST',
    )
    expect(error.details).toStrictEqual({ field: 'answerers' })
    expect(error.message).toBe(
      'answerers[1] must not hold a NUL or an unpaired surrogate: no responder has such an id',
    )
  })

  it('takes a role name whose prefixed entry is longer than the limit', () => {
    const name = 'r'.repeat(MAX_RESPONDER_FIELD_LENGTH - 'role:'.length)
    expect(readPolicy([`role:${name}`], undefined, [choice('a')])?.answerers).toEqual([
      `role:${name}`,
    ])
  })
})

describe('readPolicy: approvals', () => {
  it('keeps more than one approval, and leaves the default of 1 out', () => {
    expect(readPolicy(undefined, 2, [review])).toStrictEqual({ approvals: 2 })
    expect(readPolicy(undefined, MAX_APPROVALS, [review])).toStrictEqual({
      approvals: MAX_APPROVALS,
    })
    expect(readPolicy(undefined, 1, [review])).toBeUndefined()
    expect(readPolicy(['ana'], 1, [review])).toStrictEqual({ answerers: ['ana'] })
  })

  it.each([
    ['a string', '2'],
    ['a fraction', 1.5],
    ['zero', 0],
    ['negative', -1],
    ['one too many', MAX_APPROVALS + 1],
    ['NaN', Number.NaN],
  ])('refuses approvals that is %s', (_name, approvals) => {
    const error = thrownBy(() => readPolicy(undefined, approvals, [review]), 'INVALID_REQUEST')
    expect(error.details).toStrictEqual({ field: 'approvals' })
    expect(error.message).toBe(`approvals must be a whole number from 1 to ${MAX_APPROVALS}`)
  })

  it.each([
    ['two questions', [review, choice('b')]],
    ['a question with no intent', [choice('a')]],
  ])('refuses approvals on %s', (_name, questions) => {
    const error = thrownBy(() => readPolicy(undefined, 2, questions), 'INVALID_REQUEST')
    expect(error.details).toStrictEqual({ field: 'approvals' })
    expect(error.message).toBe('approvals applies only to an ask of one plan-review question')
    // Even approvals: 1 says "a plan review" and is refused elsewhere.
    thrownBy(() => readPolicy(undefined, 1, questions), 'INVALID_REQUEST')
  })
})

describe('readResponder', () => {
  it('passes undefined and copies a full responder', () => {
    expect(readResponder(undefined)).toBeUndefined()
    const roles = ['ops', longest]
    const by = readResponder({ id: 'ana', name: 'Ana', roles, via: 'web', extra: 1 })
    expect(by).toStrictEqual({ id: 'ana', via: 'web', name: 'Ana', roles: ['ops', longest] })
    expect(by?.roles).not.toBe(roles)
    expect(readResponder({ id: 'ana', via: 'web' })).toStrictEqual({ id: 'ana', via: 'web' })
  })

  it.each([
    ['null', null, 'must be an object { id, name?, roles?, via }'],
    ['a string', 'ana', 'must be an object { id, name?, roles?, via }'],
    ['a list', ['ana'], 'must be an object { id, name?, roles?, via }'],
    [
      'one with no id',
      { via: 'web' },
      `id must be a non-blank string of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
    ],
    [
      'one with a too long id',
      { id: long, via: 'web' },
      `id must be a non-blank string of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
    ],
    [
      'one with a blank via',
      { id: 'ana', via: ' ' },
      `via must be a non-blank string of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
    ],
    [
      'one with a blank name',
      { id: 'ana', via: 'web', name: '' },
      `name must be a non-blank string of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
    ],
    [
      'one whose roles are not a list',
      { id: 'ana', via: 'web', roles: 'ops' },
      `roles must be a list of at most ${MAX_RESPONDER_ROLES} non-blank strings`,
    ],
    [
      'one with a blank role',
      { id: 'ana', via: 'web', roles: ['ops', ''] },
      `roles must be a list of at most ${MAX_RESPONDER_ROLES} non-blank strings`,
    ],
    [
      'one with too many roles',
      { id: 'ana', via: 'web', roles: Array.from({ length: MAX_RESPONDER_ROLES + 1 }, () => 'r') },
      `roles must be a list of at most ${MAX_RESPONDER_ROLES} non-blank strings`,
    ],
  ])('refuses %s as BAD_ANSWER on by', (_name, by, message) => {
    const error = thrownBy(() => readResponder(by), 'BAD_ANSWER')
    expect(error.message).toBe(`by: ${message}`)
    expect(error.details).toStrictEqual({ field: 'by' })
  })

  it('takes exactly MAX_RESPONDER_ROLES roles', () => {
    const roles = Array.from({ length: MAX_RESPONDER_ROLES }, (_, i) => `r${i}`)
    expect(readResponder({ id: 'a', via: 'web', roles })?.roles).toEqual(roles)
  })
})

describe('readAnsweringResponder', () => {
  it.each([
    ['a NUL', 'ana\u0000'],
    ['an unpaired high surrogate', 'ana\ud83d'],
    ['an unpaired low surrogate', '\ude00ana'],
  ])('refuses an id with %s as BAD_ANSWER on by: a vote is counted by it', (_name, id) => {
    const error = thrownBy(() => readAnsweringResponder({ id, via: 'web' }), 'BAD_ANSWER')
    expect(error.message).toBe(
      'by: id must not hold a NUL or an unpaired surrogate: no store keeps one as given',
    )
    expect(error.details).toStrictEqual({ field: 'by' })
    // What a store already holds stays readable.
    expect(readResponder({ id, via: 'web' })).toStrictEqual({ id, via: 'web' })
  })

  it('takes an id with a surrogate pair, and a name with an unpaired surrogate (kept as JSON)', () => {
    expect(readAnsweringResponder({ id: 'ana 🙂', name: 'Ana\ud800', via: 'web' })).toStrictEqual({
      id: 'ana 🙂',
      name: 'Ana\ud800',
      via: 'web',
    })
    expect(readAnsweringResponder(undefined)).toBeUndefined()
  })

  it('refuses what readResponder refuses', () => {
    thrownBy(() => readAnsweringResponder({ id: ' ', via: 'web' }), 'BAD_ANSWER')
  })
})

describe('admits', () => {
  const ana = { id: 'ana', via: 'web', roles: ['ops'] }
  it('admits anyone when the ask names nobody, nobody unnamed otherwise', () => {
    expect(admits(undefined, undefined)).toBe(true)
    expect(admits(undefined, ana)).toBe(true)
    expect(admits(['ana'], undefined)).toBe(false)
  })

  it('admits by id or by role, and nobody else', () => {
    expect(admits(['ana'], ana)).toBe(true)
    expect(admits(['role:ops'], ana)).toBe(true)
    expect(admits(['bob', 'role:ops'], ana)).toBe(true)
    expect(admits(['bob'], ana)).toBe(false)
    expect(admits(['role:dev'], ana)).toBe(false)
    // A role entry is not an id, an id entry not a role.
    expect(admits(['role:ana'], ana)).toBe(false)
    expect(admits(['ops'], ana)).toBe(false)
    expect(admits(['role:ops'], { id: 'ops', via: 'web' })).toBe(false)
  })
})

describe('isApproval', () => {
  const answer = (selected: string[], custom?: string) => ({
    answers: [custom === undefined ? { id: 'plan', selected } : { id: 'plan', selected, custom }],
  })
  it('is the approve label alone, nothing typed', () => {
    expect(isApproval([review], answer(['Approve']))).toBe(true)
    expect(isApproval([review], answer(['Refuse']))).toBe(false)
    expect(isApproval([review], answer([]))).toBe(false)
    expect(isApproval([review], answer(['Approve', 'Refuse']))).toBe(false)
    expect(isApproval([review], answer(['Approve'], 'but later'))).toBe(false)
    expect(isApproval([review], { answers: [] })).toBe(false)
    expect(isApproval([choice('plan', ['Approve'])], answer(['Approve']))).toBe(false)
    expect(isApproval([], answer(['Approve']))).toBe(false)
  })
})

describe('refusals that keep the ask pending', () => {
  it('name their reason', () => {
    expect(forbiddenAnswer()).toStrictEqual({
      code: 'BAD_ANSWER',
      message: 'this responder may not answer this ask',
      details: { reason: 'forbidden' },
    })
    expect(alreadyVoted()).toStrictEqual({
      code: 'BAD_ANSWER',
      message: 'this responder has approved already',
      details: { reason: 'already-voted' },
    })
  })
})

describe('hasApproved', () => {
  const ana: Responder = { id: 'ana', via: 'test' }
  const bo: Responder = { id: 'bo', roles: ['release'], via: 'test' }

  it('matches by id alone, whatever else the responder says of itself', () => {
    expect(hasApproved([ana], { id: 'ana', name: 'Ana', via: 'web' })).toBe(true)
    expect(hasApproved([ana, bo], bo)).toBe(true)
    expect(hasApproved([ana], bo)).toBe(false)
  })

  it('is false with no approvals counted, or for a nameless responder', () => {
    expect(hasApproved(undefined, ana)).toBe(false)
    expect(hasApproved([], ana)).toBe(false)
    expect(hasApproved([ana], undefined)).toBe(false)
  })
})
