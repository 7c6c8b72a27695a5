import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore, ProviderSettlement, UserQuestions } from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'

/**
 * Two providers on two seams sharing a store gave the same answer in the same
 * millisecond, and both heard "accepted": whether a seam's commit won was read
 * back from the store (same time, same outcome) rather than learnt from the
 * write. The store now says which write committed, so exactly one wins.
 */

const questions = [{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }] }]
const answer = { answers: [{ id: 'db', selected: ['SQLite'] }] }

let seams: UserQuestions[] = []
beforeEach(() => {
  // The clock stands still: every commit below happens in the same millisecond.
  vi.useFakeTimers()
  vi.setSystemTime(5_000_000)
  seams = []
})
afterEach(async () => {
  for (const seam of seams) await seam.close()
  vi.useRealTimers()
})

async function twoPresentingSeams(store: AskStore) {
  const [worker, console_] = [createUserQuestions({ store }), createUserQuestions({ store })]
  seams.push(worker, console_)
  const here = createControllableProvider()
  const there = createControllableProvider()
  worker.registerProvider(here)
  console_.registerProvider(there)
  await settle()
  return { worker, here, there }
}

type Provider = ReturnType<typeof createControllableProvider>

/** `asker` asks; both providers answer the same, in that order: the verdict each one hears. */
async function bothAnswer(asker: UserQuestions, first: Provider, second: Provider) {
  const asked = asker.ask({ questions })
  await settle()
  first.last().resolve(answer)
  second.last().resolve(answer)
  await expect(asked).resolves.toEqual(answer)
  await settle()
  return Promise.all([first, second].map((provider) => provider.last().request.settlement))
}

describe('the same answer from two providers in the same millisecond', () => {
  it('one seam’s own ask: exactly one provider hears accepted, the other settled-elsewhere', async () => {
    const { worker, here, there } = await twoPresentingSeams(createMemoryStore())
    const verdicts = await bothAnswer(worker, here, there)
    expect(verdicts.filter((v) => v?.status === 'accepted')).toHaveLength(1)
    const refused = verdicts.find((v) => v?.status === 'refused') as ProviderSettlement & {
      status: 'refused'
    }
    expect(refused.error.details).toEqual({ reason: 'settled-elsewhere', ending: 'answered' })
  })

  it('another seam’s ask presented on two consoles: exactly one hears accepted', async () => {
    const store = createMemoryStore()
    const asker = createUserQuestions({ store })
    seams.push(asker)
    const { here, there } = await twoPresentingSeams(store)
    const verdicts = await bothAnswer(asker, there, here)
    expect(verdicts.map((v) => v?.status).sort()).toEqual(['accepted', 'refused'])
  })
})
