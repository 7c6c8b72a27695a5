import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  UserQuestionError,
  createMemoryStore,
  createUserQuestions,
  validateAnswer,
} from '../../src/protocol/index.js'
import type {
  AskStore,
  AskUserQuestionItem,
  ProviderRequest,
  UserQuestions,
  UserQuestionsOptions,
} from '../../src/protocol/index.js'
import { CorruptRowError } from '../../src/protocol/store/index.js'
import type { AdmitResult } from '../../src/protocol/store/index.js'
import { dropSeamForTesting } from '../../src/protocol/seam.js'
import { LEASE_MS, MAX_RETRY_DELAY_MS } from '../../src/machines/index.js'
import { createControllableProvider, skipAll, thrownBy } from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'

/** DESIGN §10 on the memory store: keys, a fleet of seams sharing one store, close, crashes, failures. */

const questions: AskUserQuestionItem[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
]
const answer = { answers: [{ id: 'db', selected: ['SQLite'] }] }

function outcomeOf<T>(promise: Promise<T>) {
  const seen: { value?: T; error?: unknown; settled: boolean } = { settled: false }
  promise.then(
    (value) => Object.assign(seen, { value, settled: true }),
    (error: unknown) => Object.assign(seen, { error, settled: true }),
  )
  return seen
}

let seams: UserQuestions[] = []
const seamOn = (store: AskStore, options: UserQuestionsOptions = {}) => {
  const seam = createUserQuestions({ store, ...options })
  seams.push(seam)
  return seam
}

/** A seam on `store` with a controllable provider registered. */
function presentingOn(store: AskStore) {
  const seam = seamOn(store)
  const provider = createControllableProvider()
  seam.registerProvider(provider)
  return { seam, provider }
}

/** A memory store shared by a worker seam, which asks, and a console seam, which presents. */
function fleet() {
  const store = createMemoryStore()
  return { store, worker: seamOn(store), console_: seamOn(store) }
}

/** A {@link fleet} whose console seam has a controllable provider, once the fleet has seen it. */
async function fleetWithConsole() {
  const seams = fleet()
  const there = createControllableProvider()
  seams.console_.registerProvider(there)
  await settle()
  return { ...seams, there }
}

beforeEach(() => {
  vi.useFakeTimers()
  vi.setSystemTime(1_000_000)
  seams = []
})
afterEach(async () => {
  for (const seam of seams) await seam.close()
  vi.useRealTimers()
})

describe('keys', () => {
  it('a second ask with the key attaches: same askId, presented once, both callers answered', async () => {
    const { seam, provider } = presentingOn(createMemoryStore())
    const first = seam.ask({ questions, key: 'k1' })
    const second = seam.ask({ questions, key: 'k1' })
    await settle()
    expect(provider.calls).toHaveLength(1)
    expect(seam.pending()).toHaveLength(1)
    provider.last().resolve(answer)
    await expect(first).resolves.toEqual(answer)
    await expect(second).resolves.toEqual(answer)
  })

  it('a settled key returns its answer at once, even with no provider anywhere', async () => {
    const store = createMemoryStore()
    const seam = seamOn(store)
    const dispose = seam.registerProvider({ ask: async () => answer })
    await expect(seam.ask({ questions, key: 'k2' })).resolves.toEqual(answer)
    dispose()
    const later = seamOn(store)
    await expect(later.ask({ questions, key: 'k2' })).resolves.toEqual(answer)
  })

  it('replays a stored rejection with the same code, message and details', async () => {
    const store = createMemoryStore()
    const seam = seamOn(store)
    seam.registerProvider({
      ask: () =>
        Promise.reject(
          new UserQuestionError('dismissed by the user', 'ASK_CANCELLED', {
            details: { by: 'ui' },
          }),
        ),
    })
    const first = await seam.ask({ questions, key: 'k3' }).catch((error: unknown) => error)
    const again = await seamOn(store)
      .ask({ questions, key: 'k3' })
      .catch((error: unknown) => error)
    expect(again).toBeInstanceOf(UserQuestionError)
    for (const field of ['code', 'message', 'details'] as const) {
      expect((again as UserQuestionError)[field]).toEqual((first as UserQuestionError)[field])
    }
  })

  it('a caller’s own abort is not replayed: the next ask with the key is a new ask', async () => {
    const { seam, provider } = presentingOn(createMemoryStore())
    const controller = new AbortController()
    const first = seam.ask({ questions, key: 'k4', signal: controller.signal })
    await settle()
    const firstId = provider.last().request.askId
    controller.abort('changed my mind')
    await expect(first).rejects.toMatchObject({ code: 'ASK_ABORTED' })
    const second = seam.ask({ questions, key: 'k4' })
    await settle()
    expect(provider.last().request.askId).not.toBe(firstId)
    provider.last().resolve(answer)
    await expect(second).resolves.toEqual(answer)
  })

  it('the same key with other questions is INVALID_REQUEST on field key; key order and omitted fields do not matter', async () => {
    const { seam } = presentingOn(createMemoryStore())
    void seam.ask({ questions, key: 'k5' }).catch(() => undefined)
    await settle()
    const reordered = [
      {
        options: [{ label: 'Postgres' }, { label: 'SQLite', description: undefined }],
        question: 'Which database?',
        id: 'db',
        multiSelect: undefined,
      },
    ]
    const attached = outcomeOf(seam.ask({ questions: reordered as never, key: 'k5' }))
    const other = seam.ask({ questions: [{ id: 'db', question: 'Which cache?' }], key: 'k5' })
    await expect(other).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'key' },
    })
    await settle()
    expect(attached.settled).toBe(false)
    expect(seam.pending()).toHaveLength(1)
  })
})

describe('one console for a fleet', () => {
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
})

/** The error a provider's settlement refused it with; fails the test if it was not refused. */
async function refusalOf(request: ProviderRequest): Promise<UserQuestionError> {
  const told = await request.settlement
  if (told?.status !== 'refused') throw new Error(`the settlement was ${String(told?.status)}`)
  return told.error
}

/** What another seam's provider hears and commits for an ask it presents (the foreign presenter). */
describe('a provider presenting another seam’s ask', () => {
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

describe('close and crashes', () => {
  it('close() rejects this seam’s callers, leaves a keyed ask pending and answerable elsewhere, ends a keyless one, and keeps the store open', async () => {
    const { store, worker, there } = await fleetWithConsole()
    const keyed = worker.ask({ questions, key: 'resume-me' })
    const keyless = worker.ask({ questions })
    await settle()
    const keyedId = there.calls[0]!.request.askId
    const keylessId = there.calls[1]!.request.askId
    await worker.close()
    await expect(keyed).rejects.toMatchObject({ code: 'SEAM_CLOSED' })
    await expect(keyless).rejects.toMatchObject({ code: 'SEAM_CLOSED' })
    expect((await store.get(keyedId))?.state).toBe('pending')
    expect((await store.get(keylessId))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'SEAM_CLOSED' },
    })
    expect(there.calls[0]!.request.signal.aborted).toBe(false)
    const resumed = seamOn(store).ask({ questions, key: 'resume-me' })
    await settle()
    there.calls[0]!.resolve(answer)
    await expect(resumed).resolves.toEqual(answer)
  })

  it('a dropped seam’s keyless ask ends owner-gone once its lease lapses; its keyed ask stays pending', async () => {
    const { store, worker } = await fleetWithConsole()
    void worker.ask({ questions })
    void worker.ask({ questions, key: 'kept' })
    await settle()
    const listed = await store.pending()
    const keyless = listed.find((each) => each.key === undefined)
    const keyed = listed.find((each) => each.key === 'kept')
    dropSeamForTesting(worker)
    await settle()
    await vi.advanceTimersByTimeAsync(LEASE_MS + 1)
    await settle()
    expect((await store.get(keyless!.askId))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'ASK_ABORTED', details: { reason: 'owner-gone' } },
    })
    expect((await store.get(keyed!.askId))?.state).toBe('pending')
  })

  it('any live seam ends an overdue ask ASK_TIMEOUT with the original deadline, and an answer before it wins', async () => {
    const { store, worker, there } = await fleetWithConsole()
    void worker.ask({ questions, key: 'late', timeoutMs: 10_000 })
    void worker.ask({ questions, key: 'early', timeoutMs: 10_000 })
    await settle()
    const listed = await store.pending()
    const late = listed.find((each) => each.key === 'late')
    const early = listed.find((each) => each.key === 'early')
    dropSeamForTesting(worker)
    there.calls[1]!.resolve(answer)
    await vi.advanceTimersByTimeAsync(10_000)
    await settle()
    expect((await store.get(late!.askId))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'ASK_TIMEOUT', details: { deadline: late!.deadline } },
    })
    expect((await store.get(early!.askId))?.outcome).toEqual({ status: 'answered', answer })
    expect(there.calls[0]!.request.signal.aborted).toBe(true)
  })
})

describe('store failures', () => {
  it('STORE_FAILED with the cause when admission fails, and the seam goes on working', async () => {
    const inner = createMemoryStore()
    const failure = new Error('database is locked')
    let failNext = true
    const store: AskStore = Object.create(inner) as AskStore
    store.admit = (ask) => {
      if (failNext) {
        failNext = false
        return Promise.reject(failure)
      }
      return inner.admit(ask)
    }
    const seam = seamOn(store)
    seam.registerProvider({ ask: async () => answer })
    const error = (await seam.ask({ questions }).catch((e: unknown) => e)) as UserQuestionError
    expect(error.code).toBe('STORE_FAILED')
    expect(error.cause).toBe(failure)
    await expect(seam.ask({ questions })).resolves.toEqual(answer)
  })

  it('an answer whose commit keeps failing is kept until the deadline, which then fails STORE_FAILED with the cause', async () => {
    const inner = createMemoryStore()
    const failure = new Error('disk I/O error')
    const store: AskStore = Object.create(inner) as AskStore
    store.settle = () => Promise.reject(failure)
    const { seam, provider } = presentingOn(store)
    const asked = outcomeOf(seam.ask({ questions, timeoutMs: 30_000 }))
    await settle()
    provider.last().resolve(answer)
    await vi.advanceTimersByTimeAsync(29_000)
    expect(asked.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1_000)
    await settle()
    const error = asked.error as UserQuestionError
    expect(error.code).toBe('STORE_FAILED')
    expect(error.cause).toBe(failure)
    await expect(provider.last().request.settlement).resolves.toMatchObject({ status: 'refused' })
  })

  it.each([
    [
      'neither admitted nor existing',
      () => ({ status: 'queued' }),
      /neither admitted nor existing/,
    ],
    [
      'an existing ask that is not an ask',
      () => ({ status: 'existing', record: { askId: 7 } }),
      /no askId/,
    ],
    ['nothing at all', () => undefined, /neither admitted nor existing/],
  ])(
    'STORE_FAILED when the store answers an admission with %s; the seam goes on working',
    async (_name, answerAdmission, why) => {
      const inner = createMemoryStore()
      let broken = true
      const store: AskStore = Object.create(inner) as AskStore
      store.admit = async (ask) => (broken ? (answerAdmission() as AdmitResult) : inner.admit(ask))
      const seam = seamOn(store)
      seam.registerProvider({ ask: async () => answer })
      const error = (await seam
        .ask({ questions, key: 'k' })
        .catch((e: unknown) => e)) as UserQuestionError
      expect(error).toBeInstanceOf(UserQuestionError)
      expect(error.code).toBe('STORE_FAILED')
      expect(error.cause).toBeInstanceOf(CorruptRowError)
      expect((error.cause as Error).message).toMatch(why)
      expect(seam.pending()).toEqual([])
      broken = false
      await expect(seam.ask({ questions })).resolves.toEqual(answer)
    },
  )

  it('creating a seam on an unreachable store never throws; asks get STORE_FAILED', async () => {
    const down = new Error('connection refused')
    const store = new Proxy({} as AskStore, {
      get: (_target, name) =>
        name === 'watch' ? () => () => undefined : () => Promise.reject(down),
    })
    const seam = seamOn(store, { waitForProviderMs: 1_000 })
    seam.registerProvider(createControllableProvider())
    const error = (await seam.ask({ questions }).catch((e: unknown) => e)) as UserQuestionError
    expect(error.code).toBe('STORE_FAILED')
    expect(error.cause).toBe(down)
  })
})

describe('ProviderRequest.settlement', () => {
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

describe('an ask purged before a seam heard it settle', () => {
  /** `store` as a seam sees it when the change feed lost every settlement (a listener down, say). */
  const missingSettlements = (store: AskStore): AskStore => ({
    ...store,
    watch: (listener) =>
      store.watch((change) => {
        if (change.type !== 'ask.settled') listener(change)
      }),
  })

  it("another seam's ask: the question comes down at the resync the purge brings", async () => {
    const store = createMemoryStore()
    const worker = seamOn(store)
    const { provider } = presentingOn(missingSettlements(store))
    await settle()
    const asked = outcomeOf(worker.ask({ questions, key: 'purged' }))
    const shown = await provider.call(0)
    await settle()
    const askId = shown.request.askId
    await store.settle(
      askId,
      { status: 'rejected', error: { code: 'ASK_CANCELLED', message: 'no' } },
      Date.now(),
    )
    await settle()
    expect(shown.request.signal.aborted).toBe(false)
    expect(await store.purge({ settledBefore: Date.now() + 1 })).toBe(1)
    await settle()
    expect(shown.request.signal.aborted).toBe(true)
    expect((shown.request.signal.reason as UserQuestionError).details).toMatchObject({
      reason: 'settled-elsewhere',
    })
    expect(asked.error).toMatchObject({ code: 'ASK_CANCELLED' })
  })

  it('its own ask: the caller gets STORE_FAILED instead of waiting for ever', async () => {
    const store = createMemoryStore()
    const seam = seamOn(missingSettlements(store))
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    await settle()
    const asked = outcomeOf(seam.ask({ questions, key: 'own-purged' }))
    const shown = await provider.call(0)
    await store.settle(
      shown.request.askId,
      { status: 'rejected', error: { code: 'ASK_CANCELLED', message: 'elsewhere' } },
      Date.now(),
    )
    await settle()
    expect(asked.settled).toBe(false)
    await store.purge({ settledBefore: Date.now() + 1 })
    await settle()
    expect(asked.error).toBeInstanceOf(UserQuestionError)
    expect(asked.error).toMatchObject({ code: 'STORE_FAILED' })
    expect(shown.request.signal.aborted).toBe(true)
    expect(seam.pending()).toEqual([])
  })
})
