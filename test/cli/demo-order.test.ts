import { describe, expect, it } from 'vitest'
import { inScriptOrder } from '../../src/cli/demo.js'
import type { ProviderRequest } from '../../src/protocol/index.js'

const batch = (id: string) => [{ id, question: `About ${id}?` }]
const request = (id: string, controller = new AbortController()): ProviderRequest => ({
  askId: `ask-${id}`,
  questions: batch(id),
  signal: controller.signal,
})

/** A provider that records what reached it and answers at once. */
function recording() {
  const reached: string[] = []
  return {
    reached,
    provider: {
      ask: async (asked: ProviderRequest) => {
        reached.push(asked.askId)
        return { answers: asked.questions.map(({ id }) => ({ id, selected: [] })) }
      },
    },
  }
}

describe('inScriptOrder (the demo shows an ask when its script reaches it)', () => {
  it('passes the batch the script is calling, and holds another until its call', async () => {
    const inner = recording()
    const turns = inScriptOrder(inner.provider)
    turns.calling(batch('first'))
    await turns.provider.ask(request('first'))
    const later = turns.provider.ask(request('plan'))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(inner.reached).toEqual(['ask-first'])
    turns.calling(batch('plan'))
    await expect(later).resolves.toEqual({ answers: [{ id: 'plan', selected: [] }] })
    expect(inner.reached).toEqual(['ask-first', 'ask-plan'])
  })

  it('lets a held ask go when its signal aborts, without ever showing it', async () => {
    const inner = recording()
    const turns = inScriptOrder(inner.provider)
    const controller = new AbortController()
    const held = turns.provider.ask(request('plan', controller))
    controller.abort('settled elsewhere')
    await expect(held).rejects.toBe('settled elsewhere')
    turns.calling(batch('plan'))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(inner.reached).toEqual([])
  })
})
