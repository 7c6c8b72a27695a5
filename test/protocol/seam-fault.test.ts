/**
 * An ask whose machine faults (here: taking its question down throws, inside
 * its presentation's `endPresentation` effect; or offering an answer to the
 * store throws, inside `commitProposal`) still settles: the caller gets a
 * coded error, the question comes down, the store holds the same outcome
 * (written at the fleet's next beat if the first write fails), and close()
 * waits for that write. An ask that something unplanned breaks
 * before its machine starts is rejected with the same coded error.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  UserQuestionError,
  createMemoryStore,
  createUserQuestions,
} from '../../src/protocol/index.js'
import type {
  AskStore,
  UserQuestions,
  ProviderRequest,
  SeamTelemetry,
  TelemetrySettlement,
  UserQuestionProvider,
} from '../../src/protocol/index.js'
import { HEARTBEAT_MS } from '../../src/machines/index.js'
import type * as Effects from '../../src/protocol/effects.js'
import type * as ProviderCalls from '../../src/protocol/provider-call.js'
import { recordingTelemetry } from './seam-store-fixtures.js'

/**
 * The next abort of a provider's signal throws (once), inside whichever effect
 * does it; the next offer of a presentation's proposal to the store throws
 * (once), before any write.
 */
const faults = vi.hoisted(() => ({
  next: undefined as Error | undefined,
  commit: undefined as Error | undefined,
}))
vi.mock('../../src/protocol/effects.js', async (importOriginal) => {
  const actual = await importOriginal<typeof Effects>()
  return {
    ...actual,
    commitPresentation: (...args: Parameters<typeof actual.commitPresentation>) => {
      const fault = faults.commit
      faults.commit = undefined
      if (fault !== undefined) throw fault
      return actual.commitPresentation(...args)
    },
  }
})
vi.mock('../../src/protocol/provider-call.js', async (importOriginal) => {
  const actual = await importOriginal<typeof ProviderCalls>()
  return {
    ...actual,
    callProvider: (...args: Parameters<typeof actual.callProvider>) => {
      const call = actual.callProvider(...args)
      const controller = {
        signal: call.controller.signal,
        abort: (reason: unknown) => {
          const fault = faults.next
          faults.next = undefined
          if (fault !== undefined) throw fault
          call.controller.abort(reason)
        },
      } as AbortController
      return { ...call, controller }
    },
  }
})

const questions = [{ id: 'go', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }]

/** A memory store whose settlements wait until `release()`. */
function gatedStore() {
  const inner = createMemoryStore()
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const settled: string[] = []
  const store: AskStore = {
    ...inner,
    async settle(askId, outcome, settledAt) {
      await gate
      settled.push(askId)
      return inner.settle(askId, outcome, settledAt)
    },
  }
  return { store, inner, settled, release }
}

/** A provider that never answers, and the requests it was shown. */
function silentProvider() {
  const shown: ProviderRequest[] = []
  const provider: UserQuestionProvider = {
    ask: (request) => {
      shown.push(request)
      return new Promise(() => {})
    },
  }
  return { provider, shown }
}

/** Asks on `seam` and makes the ask's machine fault as its caller aborts; resolves once the caller got PROVIDER_FAILED. */
async function askThatFaults(seam: UserQuestions) {
  const { provider, shown } = silentProvider()
  seam.registerProvider(provider)
  const controller = new AbortController()
  const asked = seam.ask({ questions, signal: controller.signal })
  await expect.poll(() => shown.length).toBe(1)
  faults.next = new Error('the presentation could not be taken down')
  controller.abort('changed my mind')
  await expect(asked).rejects.toMatchObject({ code: 'PROVIDER_FAILED' })
  return { seam, shown }
}

describe('§3 PROVIDER_FAILED: an ask whose machine faults inside the seam', () => {
  it('rejects PROVIDER_FAILED, writes that outcome, takes the question down, and close() waits for the write', async () => {
    const { store, inner, settled, release } = gatedStore()
    const fault = new Error('the presentation could not be taken down')
    const seam = createUserQuestions({ store })
    const { provider, shown } = silentProvider()
    seam.registerProvider(provider)
    const controller = new AbortController()
    const asked = seam.ask({ questions, signal: controller.signal })
    await expect.poll(() => shown.length).toBe(1)
    faults.next = fault
    controller.abort('changed my mind')

    const error = await asked.then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(error).toMatchObject({
      code: 'PROVIDER_FAILED',
      message: 'the ask failed inside the seam',
    })
    expect((error as { cause?: unknown }).cause).toBe(fault)
    expect(shown[0]?.signal.aborted).toBe(true)

    let closed = false
    const closing = seam.close().then(() => (closed = true))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(closed).toBe(false)
    release()
    await closing
    const askId = shown[0]!.askId
    expect(settled).toContain(askId)
    expect((await inner.get(askId))?.outcome).toEqual({
      status: 'rejected',
      error: { code: 'PROVIDER_FAILED', message: 'the ask failed inside the seam' },
    })
  })

  it('whose write of the fault fails: the seam’s fleet writes it at its next beat, so the row does not stay pending', async () => {
    const inner = createMemoryStore()
    let faultWrites = 0
    // The fault's own write fails once, as a store locked past its busy timeout would.
    const store: AskStore = {
      ...inner,
      async settle(askId, outcome, settledAt) {
        if (outcome.status === 'rejected' && outcome.error.code === 'PROVIDER_FAILED') {
          faultWrites += 1
          if (faultWrites === 1) throw new Error('database is locked')
        }
        return inner.settle(askId, outcome, settledAt)
      },
    }
    const { seam, shown } = await askThatFaults(createUserQuestions({ store }))
    const askId = shown[0]!.askId
    expect((await inner.get(askId))?.state).toBe('pending')

    await vi.waitFor(
      async () =>
        expect((await inner.get(askId))?.outcome).toEqual({
          status: 'rejected',
          error: { code: 'PROVIDER_FAILED', message: 'the ask failed inside the seam' },
        }),
      { timeout: 3 * HEARTBEAT_MS, interval: 100 },
    )
    // The seam's own write, which failed, and the fleet's.
    expect(faultWrites).toBe(2)
    await seam.close()
  }, 30_000)

  it('tells the seam’s telemetry one settlement: the fault, settled now, not a replay', async () => {
    const settlements: TelemetrySettlement[] = []
    const telemetry: SeamTelemetry = {
      askStarted: () => ({ settled: (settlement) => settlements.push(settlement) }),
      presentationStarted: () => undefined,
    }
    const { seam, shown } = await askThatFaults(createUserQuestions({ telemetry }))
    await seam.close()
    expect(settlements).toEqual([
      { askId: shown[0]!.askId, outcome: 'failed', errorCode: 'PROVIDER_FAILED' },
    ])
  })

  it('that faults as close() takes it down: close() still resolves, and the caller gets PROVIDER_FAILED', async () => {
    const fault = new Error('the presentation could not be taken down')
    const seam = createUserQuestions({ store: createMemoryStore() })
    const { provider, shown } = silentProvider()
    seam.registerProvider(provider)
    const asked = seam.ask({ questions }).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    await expect.poll(() => shown.length).toBe(1)
    faults.next = fault
    let closed = false
    void seam.close().then(() => (closed = true))
    await expect.poll(() => closed).toBe(true)
    const error = await asked
    expect(error).toMatchObject({
      code: 'PROVIDER_FAILED',
      message: 'the ask failed inside the seam',
    })
    expect((error as { cause?: unknown }).cause).toBe(fault)
  })

  it('a fault while the answer commits takes the question down: the provider is refused, its presentation closes taken down', async () => {
    const { telemetry, verdicts } = recordingTelemetry()
    const fault = new Error('the answer could not be offered to the store')
    const store = createMemoryStore()
    const seam = createUserQuestions({ store, telemetry })
    const shown: ProviderRequest[] = []
    seam.registerProvider({
      ask: (request) => {
        shown.push(request)
        faults.commit = fault
        return Promise.resolve({ answers: [{ id: 'go', selected: ['Yes'] }] })
      },
    })

    const error = await seam.ask({ questions }).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(error).toMatchObject({
      code: 'PROVIDER_FAILED',
      message: 'the ask failed inside the seam',
    })
    expect((error as { cause?: unknown }).cause).toBe(fault)
    const [request] = shown
    expect(request?.signal.aborted).toBe(true)
    await expect(request?.settlement).resolves.toMatchObject({
      status: 'refused',
      error: { code: 'PROVIDER_FAILED' },
    })
    expect(verdicts).toEqual([[request!.askId, 'taken-down']])
    await seam.close()
    expect((await store.get(request!.askId))?.outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'PROVIDER_FAILED' },
    })
  })
})

describe('§3 PROVIDER_FAILED: an ask that something unplanned breaks before its machine starts', () => {
  afterEach(() => vi.restoreAllMocks())

  it('rejects PROVIDER_FAILED (the ask failed inside the seam) with the throw as cause, and the seam takes the next ask', async () => {
    const seam = createUserQuestions()
    seam.registerProvider({ ask: async () => ({ answers: [{ id: 'go', selected: ['Yes'] }] }) })
    const fault = new Error('no randomness left')
    // The ask's id is minted inside ask(), after the request is validated.
    vi.spyOn(globalThis.crypto, 'randomUUID').mockImplementationOnce(() => {
      throw fault
    })
    const error = await seam.ask({ questions }).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(error).toBeInstanceOf(UserQuestionError)
    expect(error).toMatchObject({
      code: 'PROVIDER_FAILED',
      message: 'the ask failed inside the seam',
    })
    expect((error as UserQuestionError).cause).toBe(fault)
    expect(seam.pending()).toEqual([])
    await expect(seam.ask({ questions })).resolves.toEqual({
      answers: [{ id: 'go', selected: ['Yes'] }],
    })
    await seam.close()
  })
})
