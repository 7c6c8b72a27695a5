import { describe, expect, it, vi } from 'vitest'
import {
  UserQuestionError,
  createAgentRegistry,
  createMemoryStore,
  validateAnswer,
} from '../../src/protocol/index.js'
import type { Agent, AskStore, ProviderRequest } from '../../src/protocol/index.js'
import { LEASE_MS, MAX_RETRY_DELAY_MS } from '../../src/machines/index.js'
import { createControllableProvider, skipAll, thrownBy } from '../support/controllable-provider.js'
import { deferred } from '../support/deferred.js'
import { holdingStore } from '../support/holding-store.js'
import { settle } from '../support/settle.js'
import {
  answer,
  durableMemoryStore,
  fleet,
  fleetWithConsole,
  lateReadsStore,
  outcomeOf,
  presentingOn,
  questions,
  seamOn,
  useStoreSeams,
} from './seam-store-fixtures.js'
import { PEOPLE, answerOf, plan } from './seam-votes-model.js'

/** DESIGN §10 on the memory store: a fleet of seams sharing one store, one console presenting for it; §4 the settlement a provider hears. */

useStoreSeams()

describe('§10 one console for a fleet', () => {
  it('a seam with a provider presents another seam’s ask with the same askId, and the asker gets the answer', async () => {
    const { worker, console_, there: provider } = await fleetWithConsole()
    const asked = worker.ask({ questions })
    await settle()
    const [listed] = worker.pending()
    expect(provider.last().request.askId).toBe(listed!.askId)
    expect(console_.pending().map((each) => each.askId)).toEqual([listed!.askId])
    provider.last().resolve(answer)
    await expect(asked).resolves.toEqual(answer)
    await expect(provider.last().request.settlement).resolves.toEqual({ status: 'accepted' })
    expect(console_.pending()).toEqual([])
  })

  it('a console lists another seam’s asks as their asker does: the agent and the deadline where it has them, neither written out undefined', async () => {
    const store = createMemoryStore()
    const agents = createAgentRegistry()
    const agent: Agent = { id: 'planner' }
    agents.enter(agent)
    const worker = seamOn(store, { agents })
    const console_ = seamOn(store)
    console_.registerProvider(createControllableProvider())
    await settle()
    void worker.ask({ questions, agent, timeoutMs: 5_000 }).catch(() => undefined)
    void worker.ask({ questions }).catch(() => undefined)
    await settle()
    const [withBoth, plain] = worker.pending()
    expect(withBoth).toMatchObject({ agentId: 'planner', deadline: 1_000_000 + 5_000 })
    expect(Object.keys(plain!).sort()).toEqual(['askId', 'questions', 'startedAt', 'state'])
    expect(console_.pending()).toStrictEqual([withBoth, plain])
  })

  it('a seam admits an ask only after its first lease is written: no other seam can take the asker for dead', async () => {
    const inner = createMemoryStore()
    const leaseWritten = deferred()
    const admitted: string[] = []
    const store = Object.create(inner) as AskStore
    store.heartbeat = async (lease) => {
      await leaseWritten.promise
      return inner.heartbeat(lease)
    }
    store.admit = (record) => {
      admitted.push(record.askId)
      return inner.admit(record)
    }
    const seam = seamOn(store)
    seam.registerProvider(createControllableProvider())
    void seam.ask({ questions }).catch(() => undefined)
    await settle()
    expect(admitted).toEqual([])
    leaseWritten.resolve()
    await settle()
    expect(admitted).toHaveLength(1)
  })

  it('a provider registered after another seam asked is shown that ask at once, and the asker stops waiting for one', async () => {
    const store = createMemoryStore()
    const worker = seamOn(store, { waitForProviderMs: 60_000 })
    const console_ = seamOn(store)
    await settle()
    const asked = outcomeOf(worker.ask({ questions }))
    await settle()
    const [listed] = worker.pending()
    const there = createControllableProvider()
    console_.registerProvider(there)
    await settle()
    expect(there.calls.map((call) => call.request.askId)).toEqual([listed!.askId])
    // The asker knows it is shown elsewhere: no longer waiting, and its wait for a provider is over.
    expect(worker.pending()).toMatchObject([{ askId: listed!.askId, state: 'presenting' }])
    await vi.advanceTimersByTimeAsync(60_000)
    expect(asked.settled).toBe(false)
    there.last().resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
  })

  it('a provider coming elsewhere while an ask is being admitted leaves that ask alone, even where the store answers reads late', async () => {
    // Only a seam's first read of its fleet looks the store over: a later one would take an ask
    // whose admission is in flight for one purged, when a read from before the admission lands after it.
    const { store, holding, readsLand } = lateReadsStore()
    const worker = seamOn(store, { waitForProviderMs: 60_000 })
    await settle()
    const asked = outcomeOf(worker.ask({ questions }))
    await settle()
    const { provider } = presentingOn(store)
    await settle()
    await holding.release()
    await settle()
    readsLand.resolve()
    await settle()
    expect(asked).toEqual({ settled: false })
    expect(provider.last().request.signal.aborted).toBe(false)
    provider.last().resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
  })

  it('an ask shown on another seam is shown by its own seam’s provider too once one is registered there', async () => {
    const { worker, there } = await fleetWithConsole()
    const asked = outcomeOf(worker.ask({ questions }))
    await settle()
    const [listed] = worker.pending()
    expect(there.last().request.askId).toBe(listed!.askId)
    const here = createControllableProvider()
    worker.registerProvider(here)
    await settle()
    expect(here.calls.map((call) => call.request.askId)).toEqual([listed!.askId])
    here.last().resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
  })

  it('NO_PROVIDER counts a provider on any live seam sharing the store', async () => {
    const { worker, console_ } = fleet()
    await expect(worker.ask({ questions })).rejects.toMatchObject({ code: 'NO_PROVIDER' })
    const dispose = console_.registerProvider(createControllableProvider())
    await settle()
    const asked = outcomeOf(worker.ask({ questions }))
    await settle()
    expect(asked.settled).toBe(false)
    dispose()
    await settle()
    expect((asked.error as UserQuestionError).code).toBe('ASK_ABORTED')
    expect((asked.error as UserQuestionError).details).toEqual({ reason: 'provider-disposed' })
  })

  it('a seam that closed gives its lease up: its provider no longer counts for the others', async () => {
    const { store, worker, console_ } = await fleetWithConsole()
    expect(await store.leases(Date.now())).toHaveLength(2)
    // Nothing of a process-local store lapses: no seam arms a timer for the other's lease.
    expect(vi.getTimerCount()).toBe(0)
    await console_.close()
    expect(await store.leases(Date.now())).toHaveLength(1)
    await settle()
    await expect(worker.ask({ questions })).rejects.toMatchObject({ code: 'NO_PROVIDER' })
  })

  it('on a durable store a seam renews its lease every heartbeat: long after a first lease would lapse, its provider still counts and presents', async () => {
    const { store, worker, there } = await fleetWithConsole(durableMemoryStore())
    await vi.advanceTimersByTimeAsync(LEASE_MS * 4)
    await settle()
    const leases = await store.leases(Date.now())
    expect(leases).toHaveLength(2)
    for (const lease of leases) expect(lease.expiresAt).toBeGreaterThan(Date.now())
    void worker.ask({ questions }).catch(() => undefined)
    await settle()
    expect(there.calls).toHaveLength(1)
  })

  it('the first committed answer wins; the other presentation aborts settled-elsewhere and its late answer is refused', async () => {
    const { store, worker, console_ } = fleet()
    const here = createControllableProvider()
    const there = createControllableProvider()
    worker.registerProvider(here)
    console_.registerProvider(there)
    await settle()
    const asked = worker.ask({ questions })
    await settle()
    there.last().resolve(answer)
    await expect(asked).resolves.toEqual(answer)
    const mine = here.last().request
    expect(mine.signal.aborted).toBe(true)
    expect((mine.signal.reason as UserQuestionError).details).toEqual({
      reason: 'settled-elsewhere',
      ending: 'answered',
    })
    await expect(mine.settlement).resolves.toMatchObject({ status: 'refused' })
    here.last().resolve({ answers: [{ id: 'db', selected: ['Postgres'] }] })
    await settle()
    expect((await store.get(mine.askId))?.outcome).toEqual({ status: 'answered', answer })
  })

  it('disposing one provider ends nothing while another seam’s provider still presents the ask', async () => {
    const { worker, console_ } = fleet()
    const disposeHere = worker.registerProvider(createControllableProvider())
    const there = createControllableProvider()
    console_.registerProvider(there)
    await settle()
    const asked = outcomeOf(worker.ask({ questions }))
    await settle()
    disposeHere()
    await settle()
    expect(asked.settled).toBe(false)
    expect(worker.pending()[0]!.state).toBe('presenting')
    there.last().resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
  })

  it('a console whose provider is disposed takes another seam’s ask down there alone: the ask stays pending where it is shown', async () => {
    const { worker, console_ } = fleet()
    const here = createControllableProvider()
    worker.registerProvider(here)
    const there = createControllableProvider()
    const disposeThere = console_.registerProvider(there)
    await settle()
    const asked = outcomeOf(worker.ask({ questions }))
    await settle()
    const shown = there.last().request
    disposeThere()
    await settle()
    expect(shown.signal.aborted).toBe(true)
    // Handed over: the ask goes on where another provider shows it.
    expect((shown.signal.reason as UserQuestionError).details).toEqual({
      reason: 'provider-disposed',
      handOver: true,
    })
    expect(asked.settled).toBe(false)
    expect(here.last().request.signal.aborted).toBe(false)
    here.last().resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
  })

  it('a console whose provider is replaced (a UI reload) shows another seam’s pending ask again, same askId, to the new one', async () => {
    const { worker, console_ } = fleet()
    worker.registerProvider(createControllableProvider())
    const disposeThere = console_.registerProvider(createControllableProvider())
    await settle()
    const asked = outcomeOf(worker.ask({ questions }))
    await settle()
    const [listed] = worker.pending()
    disposeThere()
    await settle()
    const reloaded = createControllableProvider()
    console_.registerProvider(reloaded)
    await settle()
    expect(reloaded.calls.map((call) => call.request.askId)).toEqual([listed!.askId])
    expect(console_.pending()).toMatchObject([{ askId: listed!.askId, state: 'presenting' }])
    reloaded.last().resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
    await expect(reloaded.last().request.settlement).resolves.toEqual({ status: 'accepted' })
  })

  it('a console whose provider is replaced while its approval is written shows the ask to the new one once the write lands', async () => {
    const [alice] = PEOPLE
    const shared = createMemoryStore()
    const holding = holdingStore(shared)
    const worker = seamOn(shared)
    worker.registerProvider(createControllableProvider())
    const console_ = seamOn(holding.store)
    const first = createControllableProvider()
    const dispose = console_.registerProvider(first)
    await settle()
    const asked = outcomeOf(worker.ask({ questions: plan, approvals: 2 }))
    const shownFirst = await first.call(0)
    shownFirst.resolve({ ...answerOf('approve'), by: alice })
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['vote'])
    dispose()
    const reloaded = createControllableProvider()
    console_.registerProvider(reloaded)
    await settle()
    await holding.release()
    const shown = await reloaded.call(0)
    expect(shown.request).toMatchObject({
      askId: shownFirst.request.askId,
      approvals: { required: 2 },
    })
    expect(console_.pending()).toMatchObject([
      { askId: shownFirst.request.askId, state: 'presenting' },
    ])
    expect(asked.settled).toBe(false)
  })

  it('close() waits for a commit in flight of an answer given to another seam’s ask', async () => {
    const holding = holdingStore(createMemoryStore())
    const worker = seamOn(holding.store)
    const console_ = seamOn(holding.store)
    const there = createControllableProvider()
    console_.registerProvider(there)
    await settle()
    const asked = outcomeOf(worker.ask({ questions }))
    await settle()
    there.last().resolve(answer)
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['settle'])
    const closed = outcomeOf(console_.close())
    await settle()
    expect(closed.settled).toBe(false)
    await holding.held[0]!.run()
    await settle()
    expect(closed.settled).toBe(true)
    expect(asked.value).toEqual(answer)
  })

  it('close() resolves once what the seam showed for other seams is taken down', async () => {
    const { worker, console_, there } = await fleetWithConsole()
    void worker.ask({ questions }).catch(() => undefined)
    await settle()
    const shown = there.last().request
    await console_.close()
    expect(shown.signal.aborted).toBe(true)
    expect((shown.signal.reason as UserQuestionError).details).toEqual({
      reason: 'provider-disposed',
      handOver: true,
    })
  })
})

/** The error a provider's settlement refused it with; fails the test if it was not refused. */
async function refusalOf(request: ProviderRequest): Promise<UserQuestionError> {
  const told = await request.settlement
  if (told?.status !== 'refused') throw new Error(`the settlement was ${String(told?.status)}`)
  return told.error
}

/** What another seam's provider hears and commits for an ask it presents (the foreign presenter). */
describe('§10 a provider presenting another seam’s ask', () => {
  it('is told the ask’s deadline, and no deadline for an ask without one', async () => {
    const { worker, there } = await fleetWithConsole()
    void worker.ask({ questions, timeoutMs: 5_000 }).catch(() => undefined)
    await settle()
    expect(there.last().request.deadline).toBe(worker.pending()[0]!.deadline)
    expect(there.last().request.deadline).toBe(1_000_000 + 5_000)
    void worker.ask({ questions }).catch(() => undefined)
    await settle()
    expect(there.calls).toHaveLength(2)
    expect('deadline' in there.last().request).toBe(false)
  })

  it.each([
    ['with details', { reason: 'user-cancelled', by: 'console' }],
    ['without details', undefined],
  ])(
    'a coded refusal %s is the committed outcome: the asker gets it whole, the provider hears it accepted',
    async (_name, details) => {
      const { store, worker, there } = await fleetWithConsole()
      const asked = worker.ask({ questions }).catch((e: unknown) => e)
      await settle()
      there
        .last()
        .reject(
          new UserQuestionError(
            'not now',
            'ASK_CANCELLED',
            details === undefined ? {} : { details },
          ),
        )
      const error = (await asked) as UserQuestionError
      expect(error).toBeInstanceOf(UserQuestionError)
      expect([error.code, error.message, error.details]).toEqual([
        'ASK_CANCELLED',
        'not now',
        details,
      ])
      const stored = { code: 'ASK_CANCELLED', message: 'not now', ...(details && { details }) }
      const { askId } = there.last().request
      expect((await store.get(askId))?.outcome).toEqual({ status: 'rejected', error: stored })
      await expect(there.last().request.settlement).resolves.toEqual({ status: 'accepted' })
    },
  )

  it('an answer that does not fit ends the ask BAD_ANSWER with the rule’s details; the provider is refused', async () => {
    const { worker, there } = await fleetWithConsole()
    const asked = worker.ask({ questions }).catch((e: unknown) => e)
    await settle()
    const misfit = { answers: [{ id: 'db', selected: ['MySQL'] }] }
    const expected = thrownBy(() => validateAnswer(questions, misfit), 'BAD_ANSWER')
    there.last().resolve(misfit)
    const error = (await asked) as UserQuestionError
    expect([error.code, error.message, error.details]).toEqual([
      'BAD_ANSWER',
      expected.message,
      expected.details,
    ])
    expect(error.details).toBeDefined()
    const refused = await refusalOf(there.last().request)
    expect([refused.code, refused.details]).toEqual(['BAD_ANSWER', expected.details])
  })

  it('a commit the store refuses is retried with backoff: the human’s answer is kept, committed once the store takes it, and only then accepted', async () => {
    const inner = createMemoryStore()
    const failure = new Error('database is locked')
    const store: AskStore = Object.create(inner) as AskStore
    let refusals = 0
    store.settle = (...args) => {
      if (refusals > 0) {
        refusals -= 1
        return Promise.reject(failure)
      }
      return inner.settle(...args)
    }
    const worker = seamOn(store)
    const console_ = seamOn(store)
    const there = createControllableProvider()
    console_.registerProvider(there)
    await settle()
    const asked = outcomeOf(worker.ask({ questions, timeoutMs: 60_000 }))
    await settle()
    refusals = 3
    let verdict: unknown
    void there.last().request.settlement?.then((told) => (verdict = told))
    there.last().resolve(answer)
    await settle()
    expect(asked.settled).toBe(false)
    expect(verdict).toBeUndefined()
    expect(there.last().request.signal.aborted).toBe(false)
    // Still shown where it is answered, not waiting for a provider.
    expect(console_.pending().map((each) => each.state)).toEqual(['presenting'])
    await vi.advanceTimersByTimeAsync(3 * MAX_RETRY_DELAY_MS)
    await settle()
    expect(refusals).toBe(0)
    expect(asked.value).toEqual(answer)
    expect(verdict).toEqual({ status: 'accepted' })
    expect(there.last().request.signal.aborted).toBe(false)
  })
})

describe('§4 ProviderRequest.settlement', () => {
  it('is accepted after the commit of the provider’s own answer, refused with BAD_ANSWER for one that does not fit', async () => {
    const { seam, provider } = presentingOn(createMemoryStore())
    const good = seam.ask({ questions })
    await settle()
    provider.last().resolve(skipAll(questions))
    await good
    await expect(provider.last().request.settlement).resolves.toEqual({ status: 'accepted' })
    const bad = seam.ask({ questions }).catch(() => undefined)
    await settle()
    provider.last().resolve({ answers: [{ id: 'db', selected: ['MySQL'] }] })
    await bad
    await expect(provider.last().request.settlement).resolves.toMatchObject({
      status: 'refused',
      error: { code: 'BAD_ANSWER' },
    })
  })
})
