/**
 * A caller's abort whose write reached the store and lost its reply (the
 * connection dropped after the commit): the ask machine tried the write
 * again after a pause, deaf meanwhile to the store's own word that the ask
 * had settled with its ending. The caller waited for that retry, `pending()`
 * listed a settled ask, and on a store still failing the caller got
 * STORE_FAILED for an ask the store held as aborted. Now the feed's word
 * ends the ask while its write is under way, and its own ending keeps its
 * cause: the caller gets its abort, with its reason, without any retry.
 * On the memory store, SQLite and Postgres.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore, UserQuestionError } from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { describeDialects } from '../support/dialects.js'
import { holdingStore } from '../support/holding-store.js'

const questions = [{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }] }]
const lostReply = () => new Error('Connection terminated unexpectedly')

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function abortWhoseReplyIsLost(open: () => AskStore) {
  const holding = holdingStore(open())
  const seam = createUserQuestions({ store: holding.store })
  const provider = createControllableProvider()
  seam.registerProvider(provider)
  cleanups.push(async () => {
    await holding.release()
    await seam.close()
  })
  const caller = new AbortController()
  const asked = seam.ask({ questions, signal: caller.signal }).catch((error: unknown) => error)
  await provider.call(0)
  const reason = new Error('the agent moved on')
  caller.abort(reason)
  await vi.waitFor(() => expect(holding.held.map((write) => write.kind)).toEqual(['settle']))
  const write = holding.held.shift()!
  await write.lose(lostReply())

  // Any write tried again is held: the caller hears without one.
  const error = (await asked) as UserQuestionError
  expect(error.code).toBe('ASK_ABORTED')
  expect(error.details).toEqual({ reason: 'caller-aborted' })
  expect(error.cause).toBe(reason)
  expect(seam.pending()).toEqual([])
  expect((await holding.store.get(write.askId))?.outcome).toMatchObject({
    error: { code: 'ASK_ABORTED' },
  })
}

it('regression: an ending whose reply is lost (memory store): the caller gets it at once', async () => {
  await abortWhoseReplyIsLost(createMemoryStore)
})

describeDialects('regression: an ending whose reply is lost', (storage) => {
  it('the caller gets its abort, with its reason, with no write tried again', async () => {
    const { open } = await storage()
    await abortWhoseReplyIsLost(open)
  }, 30_000)
})
