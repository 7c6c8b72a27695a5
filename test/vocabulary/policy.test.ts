import { describe, expect, it } from 'vitest'
import { admits, hasApproved, isApproval } from '../../src/vocabulary/index.js'
import type { AskUserQuestionItem, Responder } from '../../src/vocabulary/index.js'

/*
 * The pure rules of who may answer (src/vocabulary/policy.ts). What the seam
 * makes of them, on every store and surface, is test/protocol/seam.policy.test.ts.
 */

const ana: Responder = { id: 'ana', via: 'test' }
const bo: Responder = { id: 'bo', roles: ['release', 'oncall'], via: 'test' }

describe('§12 who may answer: admits()', () => {
  it('admits anyone, named or not, when the ask names no answerers', () => {
    expect(admits(undefined, ana)).toBe(true)
    expect(admits(undefined, undefined)).toBe(true)
  })

  it('admits a responder named by id, and no one else', () => {
    expect(admits(['ana'], ana)).toBe(true)
    expect(admits(['ana'], bo)).toBe(false)
    expect(admits(['ana'], undefined)).toBe(false)
  })

  it('admits a responder by any one of its roles, and never by a role written as an id', () => {
    expect(admits(['role:oncall'], bo)).toBe(true)
    expect(admits(['role:admin', 'role:release'], bo)).toBe(true)
    expect(admits(['role:oncall'], ana)).toBe(false)
    expect(admits(['oncall'], bo)).toBe(false)
    expect(admits(['role:bo'], bo)).toBe(false)
  })
})

describe('§12 approvals: hasApproved()', () => {
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

describe('§12 approvals: isApproval()', () => {
  const review: AskUserQuestionItem[] = [
    {
      id: 'plan',
      question: 'Ship this plan?',
      intent: { kind: 'plan-review', approve: 'Approve' },
      options: [{ label: 'Approve' }, { label: 'Revise' }],
    },
  ]

  it('is the approve label alone', () => {
    expect(isApproval(review, { answers: [{ id: 'plan', selected: ['Approve'] }] })).toBe(true)
  })

  it('is not another label, a typed answer beside it, or an ask without the intent', () => {
    expect(isApproval(review, { answers: [{ id: 'plan', selected: ['Revise'] }] })).toBe(false)
    expect(
      isApproval(review, { answers: [{ id: 'plan', selected: ['Approve'], custom: 'but…' }] }),
    ).toBe(false)
    expect(isApproval(review, { answers: [{ id: 'plan', selected: [] }] })).toBe(false)
    const { intent: _intent, ...withoutIntent } = review[0] as AskUserQuestionItem
    const plain: AskUserQuestionItem[] = [withoutIntent]
    expect(isApproval(plain, { answers: [{ id: 'plan', selected: ['Approve'] }] })).toBe(false)
  })
})
