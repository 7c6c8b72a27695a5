import { describe, expect, it, vi } from 'vitest'
import { createMemoryStore } from '../../src/protocol/index.js'
import type { UserQuestionError } from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { holdingStore } from '../support/holding-store.js'
import { settle } from '../support/settle.js'
import { PEOPLE, answerOf, plan } from './seam-votes-model.js'
import {
  answer,
  outcomeOf,
  questions,
  recordingTelemetry,
  seamOn,
  useStoreSeams,
} from './seam-store-fixtures.js'

/*
 * §6 §13 the presentations of a seam's provider (src/protocol/presenter.ts),
 * seen from outside: how each one closes, as its telemetry hears it, what the
 * provider of another seam is shown, and what the ask's record keeps.
 */

useStoreSeams()

describe('§13 a presentation closes once, with its verdict', () => {
  it('the provider’s own answer is accepted', async () => {
    const { telemetry, verdicts } = recordingTelemetry()
    const seam = seamOn(createMemoryStore(), { telemetry })
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const asked = seam.ask({ questions })
    ;(await provider.call(0)).resolve(answer)
    await expect(asked).resolves.toEqual(answer)
    expect(verdicts).toEqual([[provider.calls[0]!.request.askId, 'accepted']])
  })

  it('an ask whose deadline passes while it is shown is taken down', async () => {
    const { telemetry, verdicts } = recordingTelemetry()
    const seam = seamOn(createMemoryStore(), { telemetry })
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const asked = seam.ask({ questions, timeoutMs: 1_000 }).catch((error: unknown) => error)
    const call = await provider.call(0)
    await vi.advanceTimersByTimeAsync(1_000)
    await expect(asked).resolves.toMatchObject({ code: 'ASK_TIMEOUT' })
    expect(verdicts).toEqual([[call.request.askId, 'taken-down']])
  })
})

describe('§4 the request a provider is shown', () => {
  it('names only what the ask has: no agent, deadline, answerers or approvals key when it has none', async () => {
    const seam = seamOn(createMemoryStore())
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const asked = seam.ask({ questions })
    const call = await provider.call(0)
    expect(Object.keys(call.request).sort()).toEqual(['askId', 'questions', 'settlement', 'signal'])
    call.resolve(answer)
    await expect(asked).resolves.toEqual(answer)
  })
})

describe('§12 the record keeps a refusal only while the ask goes on', () => {
  it('an answer that ends the ask as BAD_ANSWER is its settlement, not a refusal', async () => {
    const seam = seamOn(createMemoryStore())
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const asked = seam.ask({ questions }).catch((error: unknown) => error)
    const call = await provider.call(0)
    call.resolve({ answers: [{ id: 'db', selected: ['MySQL'] }] })
    await expect(asked).resolves.toMatchObject({ code: 'BAD_ANSWER' })
    await expect(call.request.settlement).resolves.toMatchObject({
      status: 'refused',
      error: { code: 'BAD_ANSWER' },
    })
    const [record] = await seam.history({ askId: call.request.askId })
    expect(record?.events.map((event) => event.type)).toEqual(['admitted', 'presented', 'settled'])
  })
})

describe('§6 §12 another seam’s ask, shown here', () => {
  it('is shown with its policy; when an answer on its own seam commits first, the answer here is refused and not recorded as a refusal', async () => {
    const store = createMemoryStore()
    const worker = seamOn(store)
    const own = createControllableProvider()
    worker.registerProvider(own)
    const watched = recordingTelemetry()
    // The console's commit is held until the worker's has landed: which one is first is the test's to say.
    const consoleStore = holdingStore(store)
    const console_ = seamOn(consoleStore.store, { telemetry: watched.telemetry })
    const there = createControllableProvider()
    console_.registerProvider(there)
    await settle()

    const asked = worker.ask({ questions, answerers: ['ana'] })
    const shownThere = await there.call(0)
    const askId = shownThere.request.askId
    expect(shownThere.request.answerers).toEqual(['ana'])

    // Both answer in one instant: the worker's commit is first, the console's loses.
    ;(await own.call(0)).resolve({ ...answer, by: { id: 'ana', via: 'web' } })
    shownThere.resolve({ ...answer, by: { id: 'ana', via: 'terminal' } })
    await expect(asked).resolves.toMatchObject(answer)
    await vi.waitFor(() => expect(consoleStore.held).toHaveLength(1))
    await consoleStore.release()
    await expect(shownThere.request.settlement).resolves.toMatchObject({ status: 'refused' })
    await settle()
    expect(shownThere.request.signal.aborted).toBe(true)
    expect(watched.verdicts).toEqual([[askId, 'refused']])
    const [record] = await worker.history({ askId })
    expect(record?.events.map((event) => event.type)).not.toContain('refused')
    expect(record?.outcome).toMatchObject({ status: 'answered', by: [{ id: 'ana', via: 'web' }] })
  })
})

describe('§4 §12 an approval counted as another answer settles the ask', () => {
  it('the provider hears its approval was counted, and its signal still aborts settled-elsewhere', async () => {
    const [alice, bob] = PEOPLE
    const inner = createMemoryStore()
    const holding = holdingStore(inner)
    const worker = seamOn(holding.store)
    const own = createControllableProvider()
    worker.registerProvider(own)
    const console_ = seamOn(inner)
    const there = createControllableProvider()
    console_.registerProvider(there)
    await settle()

    const asked = outcomeOf(worker.ask({ questions: plan, approvals: 2 }))
    const approving = await own.call(0)
    const vetoing = await there.call(0)
    approving.resolve({ ...answerOf('approve'), by: alice })
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['vote'])
    // The store counts the approval, but its reply is still on the way when the veto commits.
    const reply = await holding.held[0]!.land()
    vetoing.resolve({ ...answerOf('revise'), by: bob })
    await settle()
    expect(asked.settled).toBe(false)
    reply()
    await settle()

    expect(asked.value).toEqual(answerOf('revise'))
    await expect(approving.request.settlement).resolves.toMatchObject({
      status: 'counted',
      approvals: { required: 2, given: [alice] },
    })
    expect(approving.request.signal.aborted).toBe(true)
    expect((approving.request.signal.reason as UserQuestionError).details).toMatchObject({
      reason: 'settled-elsewhere',
    })
  })
})
