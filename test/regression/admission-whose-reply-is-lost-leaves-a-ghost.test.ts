/**
 * An ask whose admission reached the store but whose reply was lost (the
 * connection dropped after the insert) failed its caller with STORE_FAILED
 * and stayed pending in the store: every console showed a question nobody
 * waited for, until the asking process died or the deadline came, and an
 * answer to it reached no one. Now a failed admission's ending is offered to
 * the store like any other: the row it may have left is settled
 * STORE_FAILED, and an answer a console gave in between reaches the caller.
 * On real SQLite and Postgres stores, the console on another seam.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { describeDialects } from '../support/dialects.js'
import { holdingStore } from '../support/holding-store.js'

const questions = [{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }] }]
const answer = { answers: [{ id: 'db', selected: ['SQLite'] }] }
const lostReply = () => new Error('Connection terminated unexpectedly')

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/**
 * A console seam with a provider, then a seam whose admissions and
 * settlements wait for the test, asking (with `key`, or keyless once its
 * fleet knows the console's provider).
 */
async function asking(open: () => AskStore, key?: string) {
  const consoleStore = open()
  const consoleSeam = createUserQuestions({ store: consoleStore })
  const provider = createControllableProvider()
  consoleSeam.registerProvider(provider)
  await vi.waitFor(async () => {
    const leases = await consoleStore.leases(Date.now())
    expect(leases.some((lease) => lease.providerActive)).toBe(true)
  })
  const holding = holdingStore(open(), { admissions: true })
  const asker = createUserQuestions({ store: holding.store })
  cleanups.push(
    () => asker.close(),
    () => consoleSeam.close(),
  )
  const asked = asker.ask({ questions, ...(key === undefined ? {} : { key }) }).then(
    (answered) => ({ answered }),
    (error: { code: string }) => ({ code: error.code }),
  )
  await vi.waitFor(() => expect(holding.held.map((write) => write.kind)).toEqual(['admit']))
  const admission = holding.held.shift()!
  return { holding, consoleStore, provider, asked, admission, askId: admission.askId }
}

describeDialects('regression: an admission whose reply is lost', (storage) => {
  it.each([
    ['keyless', undefined],
    ['keyed', 'ghost'],
  ])(
    '%s: settles the row it left STORE_FAILED; its caller and the store agree, no console shows it',
    async (_name, key) => {
      const { open } = await storage()
      const { holding, consoleStore, provider, asked, admission, askId } = await asking(open, key)
      await holding.release()
      await admission.lose(lostReply())

      expect(await asked).toEqual({ code: 'STORE_FAILED' })
      const record = await consoleStore.get(askId)
      expect(record?.state).toBe('settled')
      expect(record?.outcome).toMatchObject({ status: 'rejected', error: { code: 'STORE_FAILED' } })
      // Shown on the console while the row was pending, if at all: taken down since.
      await vi.waitFor(() => {
        for (const call of provider.calls) expect(call.request.signal.aborted).toBe(true)
      })
    },
    30_000,
  )

  it('an answer a console gave before the failure was written reaches the caller', async () => {
    const { open } = await storage()
    const { holding, consoleStore, provider, asked, admission, askId } = await asking(open)
    await admission.lose(lostReply())
    // The clean-up write waits: meanwhile the console shows the row and a person answers.
    await vi.waitFor(() => expect(holding.held.map((write) => write.kind)).toEqual(['settle']))
    await vi.waitFor(() =>
      expect(provider.calls.map((call) => call.request.askId)).toEqual([askId]),
    )
    provider.last().resolve(answer)
    await vi.waitFor(async () => expect((await consoleStore.get(askId))?.state).toBe('settled'))
    await holding.release()

    expect(await asked).toEqual({ answered: answer })
    expect((await consoleStore.get(askId))?.outcome).toEqual({ status: 'answered', answer })
    expect(await provider.last().request.settlement).toEqual({ status: 'accepted' })
  }, 30_000)
})
