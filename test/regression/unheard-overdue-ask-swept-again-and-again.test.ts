/**
 * A seam that knew another seam's ask whose deadline had passed, but did
 * not hear it end (its store's change feed lagging, or down while its
 * listener reconnects), swept the store again and again without a pause:
 * after each sweep it armed the next one at that same deadline, already
 * past. On Postgres that was one statement after another for as long as
 * the feed stayed down. A sweep now ends every ask overdue when it began,
 * and the seam watches only the deadlines after it.
 * On the memory store, SQLite and Postgres.
 */
import { afterEach, expect, it } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore, UserQuestionError } from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { describeDialects } from '../support/dialects.js'

const questions = [{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }] }]

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function unheardOverdueAsk(asking: AskStore, answering: AskStore) {
  // The console's view of the store: its feed goes deaf on cue, and its sweeps are counted.
  let deaf = false
  let sweeps = 0
  const view = Object.create(answering) as AskStore
  view.watch = (listener) =>
    answering.watch((change) => {
      if (!deaf) listener(change)
    })
  view.expireOverdue = (now) => {
    sweeps += 1
    return answering.expireOverdue(now)
  }
  const console = createUserQuestions({ store: view })
  const provider = createControllableProvider()
  console.registerProvider(provider)
  const asker = createUserQuestions({ store: asking, waitForProviderMs: 20_000 })
  cleanups.push(() => Promise.all([asker.close(), console.close()]))

  const asked = asker.ask({ questions, timeoutMs: 300 }).catch((caught: unknown) => caught)
  const shown = await provider.call(0)
  deaf = true
  expect(((await asked) as UserQuestionError).code).toBe('ASK_TIMEOUT')
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  // One sweep at the deadline (two if the asker's own timeout had not landed yet), then none.
  expect(sweeps).toBeGreaterThanOrEqual(1)
  expect(sweeps).toBeLessThanOrEqual(2)
  // The console has not heard the ask end; it hears once its feed tells it.
  expect(shown.request.signal.aborted).toBe(false)
  deaf = false
}

it('regression: an overdue ask a console has not heard end (memory store) is swept once, not again and again', async () => {
  const store = createMemoryStore()
  await unheardOverdueAsk(store, store)
}, 30_000)

describeDialects('regression: an overdue ask a console has not heard end', (storage) => {
  it('is swept once, not again and again', async () => {
    const { open } = await storage()
    await unheardOverdueAsk(open(), open())
  }, 30_000)
})
