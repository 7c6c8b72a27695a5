/**
 * Found measuring mutation over the memory store: a provider that cancels
 * with details JSON cannot write (a bigint, a cycle) made the commit throw.
 * The memory store had already marked the ask settled, with no outcome, so
 * its caller got STORE_FAILED and the ask was gone; a database store refused
 * the write, so the ask stayed pending, its presentation retrying the commit
 * until the deadline. Now the seam drops such details at the provider's door
 * (keeping the human's cancel) and a store's refused write leaves the ask as
 * it was (the store contract checks that on every store).
 */
import { describe, expect, it } from 'vitest'
import {
  createMemoryStore,
  createUserQuestions,
  UserQuestionError,
} from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { describeDialects } from '../support/dialects.js'

const cancelledWith = (details: Record<string, unknown>) => ({
  ask: () => Promise.reject(new UserQuestionError('the user left', 'ASK_CANCELLED', { details })),
})

async function askThrough(store: AskStore, details: Record<string, unknown>) {
  const seam = createUserQuestions({ store })
  seam.registerProvider(cancelledWith(details))
  try {
    const error = (await seam
      .ask({ questions: [{ id: 'go', question: 'Go on?' }], timeoutMs: 60_000 })
      .catch((caught: unknown) => caught)) as UserQuestionError
    return { error, pending: await store.pending() }
  } finally {
    await seam.close()
  }
}

const cycle = () => {
  const details: Record<string, unknown> = { reason: 'closed-tab' }
  details.self = details
  return details
}

function expectCancelKept({ error, pending }: Awaited<ReturnType<typeof askThrough>>) {
  expect(error).toBeInstanceOf(UserQuestionError)
  expect({ code: error.code, message: error.message, details: error.details }).toEqual({
    code: 'ASK_CANCELLED',
    message: 'the user left',
    details: undefined,
  })
  expect(pending).toEqual([])
}

describe('regression: a provider’s details that JSON cannot write lose the ask', () => {
  it.each([
    ['a bigint', () => ({ tabs: 2n })],
    ['a cycle', cycle],
  ])('memory store, %s: the caller gets the cancel, the ask settled', async (_, details) => {
    expectCancelKept(await askThrough(createMemoryStore(), details()))
  })

  describeDialects('a durable store', (storage) => {
    it('a bigint: the caller gets the cancel at once, and the row holds it', async () => {
      const { open } = await storage()
      const store = open()
      const result = await askThrough(store, { tabs: 2n })
      expectCancelKept(result)
      const outcome = (await store.history({}))[0]?.outcome
      expect(outcome?.status === 'rejected' ? outcome.error : outcome).toEqual({
        code: 'ASK_CANCELLED',
        message: 'the user left',
      })
    }, 30_000)
  })
})
