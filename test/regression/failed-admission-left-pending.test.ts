/**
 * An admission that landed and lost its reply, whose one write of its
 * failure then failed too: the caller got STORE_FAILED, yet the row stayed
 * pending for as long as its seam lived (or until its deadline), shown on
 * every console with nobody waiting for the answer. Now an ask that ends
 * with its ending unwritten tells its seam, whose fleet writes that ending
 * at its next beat: the row ends as the caller was told, and a console
 * showing it is told how it ended.
 * On the memory store, SQLite and Postgres.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { HEARTBEAT_MS } from '../../src/machines/index.js'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore, UserQuestionError } from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { describeDialects } from '../support/dialects.js'
import { faultyStore } from '../protocol/faulty-store.js'
import { storeFailedOutcome } from '../../src/vocabulary/index.js'

const questions = [{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }] }]

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function failedAdmissionLeftPending(asking: AskStore, answering: AskStore) {
  const faulty = faultyStore(asking)
  // It waits for a provider, so it is admitted whatever it knows yet of the console's.
  const asker = createUserQuestions({ store: faulty.store, waitForProviderMs: 20_000 })
  const console = createUserQuestions({ store: answering })
  const provider = createControllableProvider()
  console.registerProvider(provider)
  cleanups.push(() => Promise.all([asker.close(), console.close()]))

  faulty.arm('lose', 'admit')
  faulty.arm('fail')
  const error = (await asker
    .ask({ questions })
    .catch((caught: unknown) => caught)) as UserQuestionError
  expect(error.code).toBe('STORE_FAILED')
  expect(faulty.met.map(({ kind, call }) => `${kind} ${call}`)).toEqual([
    'lose admit',
    'fail settle',
  ])
  const askId = faulty.met[0]?.askId as string
  // The row landed, and its ending did not: it is pending, and a console shows it.
  expect((await asking.get(askId))?.state).toBe('pending')
  const shown = await provider.call(0)
  expect(shown.request.askId).toBe(askId)

  // The asking seam's fleet writes the ending at its next beat.
  await vi.waitFor(
    async () => expect((await asking.get(askId))?.outcome).toEqual(storeFailedOutcome()),
    { timeout: 3 * HEARTBEAT_MS, interval: 100 },
  )
  await vi.waitFor(() => expect(shown.request.signal.aborted).toBe(true))
  expect(shown.request.signal.reason).toMatchObject({ code: 'STORE_FAILED' })
  expect(console.pending()).toEqual([])
}

it('regression: a failed admission whose ending fails too (memory store): the ending is written at the next beat', async () => {
  const store = createMemoryStore()
  await failedAdmissionLeftPending(store, store)
}, 30_000)

describeDialects('regression: a failed admission whose ending fails too', (storage) => {
  it('the row ends STORE_FAILED at the asking seam’s next beat, and the console showing it is told', async () => {
    const { open } = await storage()
    await failedAdmissionLeftPending(open(), open())
  }, 30_000)
})
