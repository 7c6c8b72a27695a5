import { describe, expect, it } from 'vitest'
import { createAgentRegistry, createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionRequest } from '../../src/protocol/index.js'
import {
  choice,
  createControllableProvider,
  rejectionOf,
} from '../support/controllable-provider.js'
import { planReview } from '../support/plan-review.js'

/** DESIGN §3: the order the seam checks a request in, and that a rejected ask never reaches the provider. */

/** Asks through the seam with a request the type system would refuse. */
function askLoose(
  seam: ReturnType<typeof createUserQuestions>,
  request: unknown,
): Promise<unknown> {
  return seam.ask(request as AskUserQuestionRequest)
}

describe('§3 check order, through the seam', () => {
  const malformed = [{ id: '', question: '' }]

  it('an aborted signal wins over an invalid request: ASK_ABORTED', async () => {
    const seam = createUserQuestions()
    const controller = new AbortController()
    controller.abort(new Error('tool call cancelled'))
    await rejectionOf(
      askLoose(seam, { questions: 'nope', signal: controller.signal }),
      'ASK_ABORTED',
    )
    await rejectionOf(askLoose(seam, { questions: [], signal: controller.signal }), 'ASK_ABORTED')
  })

  it('empty wins over a caller that is not live', async () => {
    const seam = createUserQuestions({ agents: createAgentRegistry() })
    await rejectionOf(askLoose(seam, { questions: [], agent: { id: 'ghost' } }), 'EMPTY_QUESTIONS')
  })

  it('a caller that is not live wins over a malformed question', async () => {
    const seam = createUserQuestions({ agents: createAgentRegistry() })
    await rejectionOf(
      askLoose(seam, { questions: malformed, agent: { id: 'ghost' } }),
      'CALLER_NOT_LIVE',
    )
  })

  it('a delegated caller wins over a malformed question', async () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    const child = { id: 'child' }
    agents.enter(root)
    agents.enter(child, root)
    const seam = createUserQuestions({ agents })
    await rejectionOf(askLoose(seam, { questions: malformed, agent: child }), 'DELEGATED_CALLER')
  })

  it('a malformed question wins over a bad intent in an earlier question', async () => {
    const seam = createUserQuestions()
    const badIntent = planReview({ intent: { kind: 'plan-review', approve: 'nowhere' } })
    await rejectionOf(askLoose(seam, { questions: [badIntent, ...malformed] }), 'INVALID_REQUEST')
    await rejectionOf(askLoose(seam, { questions: [badIntent], timeoutMs: -5 }), 'INVALID_REQUEST')
  })

  it('a bad intent wins over a missing provider', async () => {
    const seam = createUserQuestions()
    const badIntent = planReview({ intent: { kind: 'plan-review', approve: 'nowhere' } })
    await rejectionOf(askLoose(seam, { questions: [badIntent] }), 'BAD_INTENT')
    await rejectionOf(seam.ask({ questions: [choice('a')] }), 'NO_PROVIDER')
  })

  it('a rejected ask never reaches the provider and never becomes pending', async () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    const child = { id: 'child' }
    agents.enter(root)
    agents.enter(child, root)
    const seam = createUserQuestions({ agents })
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const aborted = AbortSignal.abort()
    const bad: Array<[unknown, Parameters<typeof rejectionOf>[1]]> = [
      [{ questions: [choice('a')], signal: aborted }, 'ASK_ABORTED'],
      [{ questions: [] }, 'EMPTY_QUESTIONS'],
      [{ questions: [choice('a')], agent: { id: 'root' } }, 'CALLER_NOT_LIVE'],
      [{ questions: [choice('a')], agent: child }, 'DELEGATED_CALLER'],
      [{ questions: [choice('a'), choice('a')] }, 'INVALID_REQUEST'],
      [{ questions: [planReview({ detail: undefined })] }, 'BAD_INTENT'],
      [null, 'INVALID_REQUEST'],
    ]
    for (const [request, code] of bad) await rejectionOf(askLoose(seam, request), code)
    expect(provider.calls).toHaveLength(0)
    expect(seam.pending()).toEqual([])
  })
})
