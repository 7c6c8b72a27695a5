/**
 * presentationMachine when a write of its proposal failed although it had
 * landed (the connection dropped after the commit, before its reply): the
 * retry, or the store's feed, then finds the ask settled with the proposal
 * itself. The provider is told its answer was accepted (or its approval
 * counted), not that another settlement came first. A write whose reply came
 * is believed as it is: an equal outcome another provider wrote is not this one's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { alreadyVoted, settledElsewhereOutcome } from '../../src/vocabulary/index.js'
import type { AskOutcome } from '../../src/vocabulary/index.js'
import { planToApprove } from '../support/plan-review.js'
import { answer, answered, presenting, writing } from './presentation-fixtures.js'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(0)
})
afterEach(() => {
  vi.useRealTimers()
})

const ann = { id: 'ann', via: 'web' }
const bob = { id: 'bob', via: 'web' }
const byAnn: AskOutcome = { status: 'answered', answer, by: [ann] }
const byBob: AskOutcome = { status: 'answered', answer, by: [bob] }

/** A presentation whose provider answered as ann, its first write failed: it waits to retry. */
async function retrying() {
  const run = presenting()
  run.actor.send({ type: 'provider.answered', answer: { ...answer, by: ann } })
  run.actor.send({ type: 'commit.failed', lasting: false })
  expect(run.actor.getSnapshot().value).toEqual({ committing: 'waiting' })
  return run
}

describe('presentationMachine: an answer whose write landed but failed', () => {
  it('the retry finds its own answer committed: accepted, the signal left alone', async () => {
    const { actor, effects } = await retrying()
    await vi.advanceTimersToNextTimerAsync()
    expect(effects.offered).toEqual([byAnn, byAnn])
    actor.send({ type: 'commit.done', outcome: byAnn, won: false })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: byAnn })
    expect(effects).toMatchObject({ told: [{ status: 'accepted' }], ended: [] })
  })

  it('the feed brings its own answer while it waits to retry: accepted, no retry left armed', async () => {
    const { actor, effects } = await retrying()
    actor.send({ type: 'ask.settled', outcome: byAnn })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: byAnn })
    expect(effects).toMatchObject({ told: [{ status: 'accepted' }], ended: [] })
    expect(effects.offered).toHaveLength(1)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('the feed brings its own answer while the write is under way, and the write then fails: accepted', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'ask.settled', outcome: answered })
    actor.send({ type: 'commit.failed', lasting: false })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: answered })
    expect(effects).toMatchObject({ told: [{ status: 'accepted' }], ended: [] })
    expect(vi.getTimerCount()).toBe(0)
  })

  it.each<[string, AskOutcome]>([
    ['the same answer by someone else', byBob],
    ['another answer by the same person', { ...byAnn, answer: { answers: [] } }],
  ])('%s, committed while it waits to retry: refused', async (_name, outcome) => {
    const { actor, effects } = await retrying()
    actor.send({ type: 'ask.settled', outcome })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome })
    expect(effects.ended).toEqual([settledElsewhereOutcome(outcome)])
  })

  it('a first write that says it lost did lose, even to an equal outcome (another provider’s)', () => {
    const { actor, effects } = writing()
    actor.send({ type: 'commit.done', outcome: answered, won: false })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'refused', outcome: answered })
    expect(effects.ended).toEqual([settledElsewhereOutcome(answered)])
  })
})

describe('presentationMachine: an approval whose write landed but failed', () => {
  const approve = { answers: [{ id: 'plan', selected: ['Approve'] }] }

  /** Ann approves a plan two must approve (the store's count read as none yet); her first write fails. */
  async function approvalRetrying() {
    const run = presenting({ questions: planToApprove, policy: { approvals: 2 } })
    run.actor.send({ type: 'votes.read', given: [] })
    run.actor.send({ type: 'provider.answered', answer: { ...approve, by: ann } })
    run.actor.send({ type: 'commit.failed', lasting: false })
    await vi.advanceTimersToNextTimerAsync()
    expect(run.actor.getSnapshot().value).toEqual({ committing: 'writing' })
    return run
  }

  it('the retry hears her approval counted already: told counted and shown again, not already-voted', async () => {
    const { actor, effects } = await approvalRetrying()
    actor.send({ type: 'vote.already', given: [ann] })
    expect(actor.getSnapshot().value).toBe('presenting')
    expect(effects.told).toEqual([{ status: 'counted', approvals: { required: 2, given: [ann] } }])
    actor.stop()
  })

  it('the retry finds the plan approved with her approval among those given: accepted', async () => {
    const { actor, effects } = await approvalRetrying()
    const approved: AskOutcome = { status: 'answered', answer: approve, by: [bob, ann] }
    actor.send({ type: 'commit.done', outcome: approved, won: false })
    expect(actor.getSnapshot().output).toEqual({ verdict: 'accepted', outcome: approved })
    expect(effects).toMatchObject({ told: [{ status: 'accepted' }], ended: [] })
  })

  it('approved without her: refused', async () => {
    const { actor } = await approvalRetrying()
    const approved: AskOutcome = { status: 'answered', answer: approve, by: [bob] }
    actor.send({ type: 'commit.done', outcome: approved, won: false })
    expect(actor.getSnapshot().output).toMatchObject({ verdict: 'refused' })
  })

  it('the plan revised by her own hand on another console, not approved: refused', async () => {
    const { actor } = await approvalRetrying()
    const revised: AskOutcome = {
      status: 'answered',
      answer: { answers: [{ id: 'plan', selected: ['Revise'] }] },
      by: [ann],
    }
    actor.send({ type: 'commit.done', outcome: revised, won: false })
    expect(actor.getSnapshot().output).toMatchObject({ verdict: 'refused', outcome: revised })
  })

  it('the approval committed with no one named (not an approval this ask counts): refused', async () => {
    const { actor } = await approvalRetrying()
    const nameless: AskOutcome = { status: 'answered', answer: approve }
    actor.send({ type: 'commit.done', outcome: nameless, won: false })
    expect(actor.getSnapshot().output).toMatchObject({ verdict: 'refused', outcome: nameless })
  })

  it('a first write that hears already-voted is told so', () => {
    const { actor, effects } = presenting({ questions: planToApprove, policy: { approvals: 2 } })
    actor.send({ type: 'votes.read', given: [] })
    actor.send({ type: 'provider.answered', answer: { ...approve, by: ann } })
    actor.send({ type: 'vote.already', given: [ann] })
    expect(actor.getSnapshot().value).toBe('pausing')
    expect(effects.told).toEqual([{ status: 'refused', error: alreadyVoted(), by: ann }])
    actor.stop()
  })
})
