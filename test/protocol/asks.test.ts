import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  UserQuestionError,
  createAgentRegistry,
  createMemoryStore,
} from '../../src/protocol/index.js'
import type { SeamTelemetry, TelemetryAsk } from '../../src/protocol/index.js'
import type { AskStore, NewAskRecord } from '../../src/protocol/store/index.js'
import { dropSeamForTesting } from '../../src/protocol/seam.js'
import { createControllableProvider, track } from '../support/controllable-provider.js'
import { holdingStore } from '../support/holding-store.js'
import { settle } from '../support/settle.js'
import { abortListeners } from './seam-fixtures.js'
import {
  answer,
  outcomeOf,
  presentingOn,
  questions,
  seamOn,
  useStoreSeams,
} from './seam-store-fixtures.js'

/*
 * §4 §6 §10 the asks of one seam (src/protocol/asks.ts, callers.ts and the
 * admission row of effects.ts), seen from outside: which asks it runs and
 * lists, what it writes when it admits one, what its callers and its
 * telemetry hear, and what a dropped seam leaves behind.
 */

useStoreSeams()

/** Seams that wait for a provider rather than refuse at once with NO_PROVIDER. */
const patient = { waitForProviderMs: 60_000 }

/** `inner`, with every admission it is offered recorded as written. */
function recordingAdmissions(inner: AskStore) {
  const admitted: NewAskRecord[] = []
  const store = Object.create(inner) as AskStore
  store.admit = (record) => {
    admitted.push(structuredClone(record))
    return inner.admit(record)
  }
  return { store, admitted }
}

/** Telemetry that keeps what each ask started with and how many settlements it heard. */
function recordingTelemetry() {
  const started: TelemetryAsk[] = []
  let settlements = 0
  const telemetry: SeamTelemetry = {
    askStarted: (ask) => {
      started.push(ask)
      return { settled: () => void (settlements += 1) }
    },
    presentationStarted: () => undefined,
  }
  return { telemetry, started, settled: () => settlements }
}

describe('§10 a key this seam already runs', () => {
  it('a second caller joins the running ask: the store is offered one admission', async () => {
    const { store, admitted } = recordingAdmissions(createMemoryStore())
    const seam = seamOn(store)
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const first = seam.ask({ questions, key: 'joined' })
    const second = seam.ask({ questions, key: 'joined' })
    await settle()
    expect(admitted.map((record) => record.key)).toEqual(['joined'])
    provider.last().resolve(answer)
    await expect(first).resolves.toEqual(answer)
    await expect(second).resolves.toEqual(answer)
  })

  it('once it settles, the next ask with the key is offered to the store again', async () => {
    const { store, admitted } = recordingAdmissions(createMemoryStore())
    const seam = seamOn(store)
    seam.registerProvider({ ask: async () => answer })
    await expect(seam.ask({ questions, key: 'again' })).resolves.toEqual(answer)
    // Replayed from the store, which holds the answer; not joined to a finished ask here.
    await expect(seam.ask({ questions, key: 'again' })).resolves.toEqual(answer)
    expect(admitted).toHaveLength(2)
  })
})

describe('§10 a keyed ask another seam holds', () => {
  it('is followed under the held ask’s id: listed once, shown where a provider is, gone once answered', async () => {
    const store = createMemoryStore()
    const owner = seamOn(store, patient)
    const follower = seamOn(store, patient)
    const first = owner.ask({ questions, key: 'shared' })
    await settle()
    const [held] = owner.pending()
    const second = follower.ask({ questions, key: 'shared' })
    await settle()
    expect(follower.pending()).toEqual([
      {
        askId: held!.askId,
        questions,
        state: 'waiting-for-provider',
        startedAt: held!.startedAt,
      },
    ])

    const { provider } = presentingOn(store)
    await settle()
    expect(follower.pending().map(({ askId, state }) => ({ askId, state }))).toEqual([
      { askId: held!.askId, state: 'presenting' },
    ])
    provider.last().resolve(answer)
    await expect(first).resolves.toEqual(answer)
    await expect(second).resolves.toEqual(answer)
    expect(follower.pending()).toEqual([])
  })
})

describe('§4 pending() of the asks this seam runs', () => {
  it('an answer being committed is still presenting, and an entry names no field it lacks', async () => {
    const holding = holdingStore(createMemoryStore())
    const { seam, provider } = presentingOn(holding.store)
    const asked = seam.ask({ questions })
    await settle()
    provider.last().resolve(answer)
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['settle'])
    const [entry] = seam.pending()
    expect(entry?.state).toBe('presenting')
    expect(Object.keys(entry!).sort()).toEqual(['askId', 'questions', 'startedAt', 'state'])
    await holding.release()
    await expect(asked).resolves.toEqual(answer)
  })

  it('an ask the store has not admitted yet waits for a provider, though another seam has one', async () => {
    const holding = holdingStore(createMemoryStore(), { admissions: true })
    const { provider } = presentingOn(holding.store)
    const worker = seamOn(holding.store, patient)
    await settle()
    const asked = worker.ask({ questions })
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['admit'])
    expect(worker.pending().map((entry) => entry.state)).toEqual(['waiting-for-provider'])
    await holding.release()
    await settle()
    // Admitted, it is shown elsewhere at once: the same list says so.
    expect(worker.pending().map((entry) => entry.state)).toEqual(['presenting'])
    provider.last().resolve(answer)
    await expect(asked).resolves.toEqual(answer)
  })

  it('a shown ask whose caller aborted is presenting until that ending commits', async () => {
    const holding = holdingStore(createMemoryStore())
    const { seam } = presentingOn(holding.store)
    const controller = new AbortController()
    const asked = outcomeOf(seam.ask({ questions, signal: controller.signal }))
    await settle()
    controller.abort()
    await settle()
    expect(holding.held.map((write) => write.outcome?.status)).toEqual(['rejected'])
    expect(seam.pending().map((entry) => entry.state)).toEqual(['presenting'])
    await holding.release()
    await settle()
    expect((asked.error as UserQuestionError).code).toBe('ASK_ABORTED')
    expect(seam.pending()).toEqual([])
  })
})

describe('§4 pending() across a fleet', () => {
  it('lists this seam’s asks and other seams’ in one list, oldest first', async () => {
    const store = createMemoryStore()
    const other = seamOn(store, patient)
    const here = seamOn(store, patient)
    void outcomeOf(other.ask({ questions }))
    await settle()
    vi.advanceTimersByTime(1_000)
    void outcomeOf(here.ask({ questions }))
    vi.advanceTimersByTime(1_000)
    void outcomeOf(other.ask({ questions }))
    await settle()
    expect(here.pending().map(({ startedAt }) => startedAt)).toEqual([
      1_000_000, 1_001_000, 1_002_000,
    ])
    // Each seam runs some of the three and follows the rest: both list them alike.
    expect(here.pending()).toEqual(other.pending())
  })
})

describe('§10 the row an admission writes', () => {
  it('holds what the ask has, and no field it lacks', async () => {
    const { store, admitted } = recordingAdmissions(createMemoryStore())
    const seam = seamOn(store, patient)
    void outcomeOf(seam.ask({ questions }))
    await settle()
    expect(Object.keys(admitted[0]!).sort()).toEqual([
      'askId',
      'ownerSeamId',
      'questions',
      'startedAt',
    ])
  })

  it('names the agent, the deadline and the key, so another seam lists them', async () => {
    const agents = createAgentRegistry()
    const agent = { id: 'planner' }
    agents.enter(agent)
    const store = createMemoryStore()
    const asking = seamOn(store, { agents, ...patient })
    const listing = seamOn(store, patient)
    void outcomeOf(asking.ask({ questions, key: 'named', agent, timeoutMs: 60_000 }))
    await settle()
    const [mine] = asking.pending()
    expect(listing.pending()).toEqual([
      {
        askId: mine!.askId,
        questions,
        agentId: 'planner',
        state: 'waiting-for-provider',
        startedAt: mine!.startedAt,
        deadline: mine!.startedAt + 60_000,
      },
    ])
    expect((await store.get(mine!.askId))?.key).toBe('named')
  })
})

describe('§13 what the seam’s telemetry is told of an ask', () => {
  it('its id and questions, and its key and agent only where it has them', async () => {
    const agents = createAgentRegistry()
    const agent = { id: 'planner' }
    agents.enter(agent)
    const { telemetry, started } = recordingTelemetry()
    const seam = seamOn(createMemoryStore(), { telemetry, agents, ...patient })
    void outcomeOf(seam.ask({ questions }))
    void outcomeOf(seam.ask({ questions, key: 'traced', agent }))
    await settle()
    expect(Object.keys(started[0]!).sort()).toEqual(['askId', 'questions'])
    expect(started[1]).toEqual({
      askId: expect.any(String),
      questions,
      key: 'traced',
      agentId: 'planner',
    })
  })

  it('a dropped seam’s pending ask never reports a settlement', async () => {
    const { telemetry, settled } = recordingTelemetry()
    const seam = seamOn(createMemoryStore(), { telemetry, ...patient })
    const asked = outcomeOf(seam.ask({ questions }))
    await settle()
    dropSeamForTesting(seam)
    await settle()
    expect(settled()).toBe(0)
    expect(asked.settled).toBe(false)
  })
})

describe('§4 callers of one keyed ask', () => {
  it('one that aborts leaves alone with ASK_ABORTED; the ask goes on for the other', async () => {
    const { seam, provider } = presentingOn(createMemoryStore())
    const leaving = new AbortController()
    const first = track(seam.ask({ questions, key: 'two', signal: leaving.signal }))
    const second = seam.ask({ questions, key: 'two' })
    await settle()
    leaving.abort('changed my mind')
    const left = await first.done
    expect(left.status).toBe('rejected')
    const error = (left as { reason: UserQuestionError }).reason
    expect(error).toBeInstanceOf(UserQuestionError)
    expect(error.code).toBe('ASK_ABORTED')
    expect(error.cause).toBe('changed my mind')
    expect(provider.last().request.signal?.aborted).toBe(false)
    expect(seam.pending()).toHaveLength(1)
    expect(abortListeners(leaving.signal)).toBe(0)
    provider.last().resolve(answer)
    await expect(second).resolves.toEqual(answer)
  })

  it('one that joined later and aborts leaves alone too; the first still gets the answer', async () => {
    const { seam, provider } = presentingOn(createMemoryStore())
    const first = seam.ask({ questions, key: 'two' })
    const leaving = new AbortController()
    const later = track(seam.ask({ questions, key: 'two', signal: leaving.signal }))
    await settle()
    leaving.abort('changed my mind')
    await settle()
    const left = later.settlement
    expect(left.status).toBe('rejected')
    const error = (left as { reason: UserQuestionError }).reason
    expect(error.code).toBe('ASK_ABORTED')
    expect(error.cause).toBe('changed my mind')
    expect(provider.last().request.signal?.aborted).toBe(false)
    expect(abortListeners(leaving.signal)).toBe(0)
    provider.last().resolve(answer)
    await expect(first).resolves.toEqual(answer)
  })
})

describe('§4 a dropped seam', () => {
  afterEach(() => vi.restoreAllMocks())

  it('lets go of its callers’ signals; aborting one later tells nothing', async () => {
    const warn = vi.spyOn(console, 'warn')
    const seam = seamOn(createMemoryStore(), patient)
    const controller = new AbortController()
    const asked = outcomeOf(seam.ask({ questions, signal: controller.signal }))
    await settle()
    expect(abortListeners(controller.signal)).toBe(1)
    dropSeamForTesting(seam)
    expect(abortListeners(controller.signal)).toBe(0)
    controller.abort()
    await settle()
    expect(asked.settled).toBe(false)
    expect(warn).not.toHaveBeenCalled()
  })

  it('is closed: a later ask is refused SEAM_CLOSED and stores nothing, a later provider is refused too', async () => {
    const store = createMemoryStore()
    const seam = seamOn(store, patient)
    await settle()
    dropSeamForTesting(seam)
    const asked = outcomeOf(seam.ask({ questions }))
    await settle()
    expect(asked.error).toBeInstanceOf(UserQuestionError)
    expect((asked.error as UserQuestionError).code).toBe('SEAM_CLOSED')
    expect(await store.pending()).toEqual([])
    expect(() => seam.registerProvider(createControllableProvider())).toThrow(
      expect.objectContaining({ code: 'SEAM_CLOSED' }),
    )
  })

  it('an admission that completes after the drop reaches no machine', async () => {
    const warn = vi.spyOn(console, 'warn')
    const holding = holdingStore(createMemoryStore(), { admissions: true })
    const seam = seamOn(holding.store, patient)
    const asked = outcomeOf(seam.ask({ questions }))
    await settle()
    expect(holding.held.map((write) => write.kind)).toEqual(['admit'])
    dropSeamForTesting(seam)
    await holding.release()
    await settle()
    expect(asked.settled).toBe(false)
    expect(warn).not.toHaveBeenCalled()
  })
})

describe('§4 close()', () => {
  it('called again, returns the same promise', async () => {
    const seam = seamOn(createMemoryStore(), patient)
    void outcomeOf(seam.ask({ questions }))
    await settle()
    const first = seam.close()
    expect(seam.close()).toBe(first)
    await first
  })

  it('resolves only once each ask has its outcome written', async () => {
    const holding = holdingStore(createMemoryStore())
    const seam = seamOn(holding.store, patient)
    const asked = outcomeOf(seam.ask({ questions }))
    await settle()
    const closed = outcomeOf(seam.close())
    await settle()
    expect(holding.held.map((write) => write.outcome?.status)).toEqual(['rejected'])
    expect(closed.settled).toBe(false)
    await holding.release()
    await settle()
    expect(closed.settled).toBe(true)
    expect((asked.error as UserQuestionError).code).toBe('SEAM_CLOSED')
  })
})
