import { afterEach, describe, expect, it } from 'vitest'
import { createAgentRegistry } from '../../src/protocol/index.js'
import type { Agent, UserQuestions } from '../../src/protocol/index.js'
import { choice, rejectionOf, seamWithProvider, skipAll } from '../support/controllable-provider.js'

const root: Agent = { id: 'root' }
const child: Agent = { id: 'child' }
const seams: UserQuestions[] = []

function seamRequiringAgent(requireAgent?: boolean) {
  const agents = createAgentRegistry()
  agents.enter(root)
  agents.enter(child, root)
  const made = seamWithProvider(requireAgent === undefined ? { agents } : { agents, requireAgent })
  seams.push(made.seam)
  return made
}

afterEach(async () => {
  await Promise.all(seams.splice(0).map((seam) => seam.close()))
})

describe('requireAgent', () => {
  it('a live root agent still asks, and gets its answer', async () => {
    const { seam, provider } = seamRequiringAgent(true)
    const asking = seam.ask({ questions: [choice('q')], agent: root })
    const call = await provider.call(0)
    expect(call.request.agent).toBe(root)
    call.resolve(skipAll([choice('q')]))
    await expect(asking).resolves.toEqual({ answers: [{ id: 'q', selected: [] }] })
  })

  it('an ask without agent is CALLER_NOT_LIVE before any provider sees it', async () => {
    const { seam, provider } = seamRequiringAgent(true)
    const error = await rejectionOf(seam.ask({ questions: [choice('q')] }), 'CALLER_NOT_LIVE')
    expect(error.details).toEqual({ reason: 'no-agent' })
    expect(error.message).toMatch(/requireAgent/)
    expect(provider.calls).toHaveLength(0)
  })

  it('keeps the DESIGN §3 order: an empty batch is EMPTY_QUESTIONS, a malformed one still CALLER_NOT_LIVE', async () => {
    const { seam, provider } = seamRequiringAgent(true)
    await rejectionOf(seam.ask({ questions: [] }), 'EMPTY_QUESTIONS')
    // Malformed on purpose: the caller verdict comes before the shape check.
    await rejectionOf(seam.ask({ questions: 'not a list' } as never), 'CALLER_NOT_LIVE')
    expect(provider.calls).toHaveLength(0)
  })

  it('a subagent that names itself is still DELEGATED_CALLER', async () => {
    const { seam, provider } = seamRequiringAgent(true)
    await rejectionOf(seam.ask({ questions: [choice('q')], agent: child }), 'DELEGATED_CALLER')
    expect(provider.calls).toHaveLength(0)
  })

  it('defaults to false: an ask without agent reaches the provider', async () => {
    const { seam, provider } = seamRequiringAgent()
    const asking = seam.ask({ questions: [choice('q')] })
    ;(await provider.call(0)).resolve(skipAll([choice('q')]))
    await expect(asking).resolves.toEqual({ answers: [{ id: 'q', selected: [] }] })
  })
})
