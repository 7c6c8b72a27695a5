import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, getNextSnapshot, toPromise } from 'xstate'
import { askMachine, createPresenter } from '../../src/machines/index.js'
import type { AskInput } from '../../src/machines/index.js'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type { ProviderRequest, UserQuestionProvider } from '../../src/protocol/index.js'
import { askInput, questions } from './ask-input.js'

/** A bare ask machine whose presenting step calls `provider` (the seam binds its live one the same way). */
function withProvider(provider: UserQuestionProvider) {
  return askMachine.provide({
    actors: {
      presentToProvider: createPresenter((input) =>
        provider.ask({ ...input, signal: new AbortController().signal }),
      ),
    },
  })
}

function run(provider: UserQuestionProvider, extra: Partial<AskInput> = {}) {
  const actor = createActor(withProvider(provider), { input: askInput(extra) })
  actor.start()
  return actor
}

describe('askMachine: which final state records the outcome', () => {
  it('a UI cancellation ends in cancelled', async () => {
    const actor = run({
      ask: () => Promise.reject(new UserQuestionError('closed', 'ASK_CANCELLED')),
    })
    const output = await toPromise(actor).catch(() => actor.getSnapshot().output)
    expect(actor.getSnapshot().value).toBe('cancelled')
    expect(output).toMatchObject({ status: 'rejected', error: { code: 'ASK_CANCELLED' } })
  })

  it.each([
    ['another of our codes', new UserQuestionError('gone', 'ASK_ABORTED'), 'ASK_ABORTED'],
    ['a plain error', new Error('crashed'), 'PROVIDER_FAILED'],
  ])('%s ends in failed', async (_name, error, code) => {
    const actor = run({ ask: () => Promise.reject(error) })
    await toPromise(actor)
    expect(actor.getSnapshot().value).toBe('failed')
    expect(actor.getSnapshot().output).toMatchObject({ status: 'rejected', error: { code } })
  })

  it('an answer ends in answered with the canonical answer', async () => {
    const actor = run({ ask: async () => ({ answers: [{ id: 'q', selected: ['No'] }] }) })
    await toPromise(actor)
    expect(actor.getSnapshot().value).toBe('answered')
    expect(actor.getSnapshot().output).toEqual({
      status: 'answered',
      answer: { answers: [{ id: 'q', selected: ['No'] }] },
    })
  })

  it('no provider and no wait ends in failed with NO_PROVIDER, committed in the same step', () => {
    const actor = createActor(askMachine, {
      input: askInput({ providerHere: false }),
    }).start()
    expect(actor.getSnapshot().value).toBe('failed')
    expect(actor.getSnapshot().output).toMatchObject({
      status: 'rejected',
      error: { code: 'NO_PROVIDER' },
    })
  })
})

describe('askMachine is pure and its context is data', () => {
  const presenting = () => {
    const takeBack = vi.fn()
    const machine = withProvider({ ask: () => new Promise(() => {}) }).provide({
      actions: { takeBackPresentation: takeBack },
    })
    const actor = createActor(machine, {
      input: askInput({ startedAt: 1_000, deadline: 61_000, providerGraceMs: 5_000 }),
    }).start()
    return { machine, actor, takeBack }
  }

  it('computing provider.disposed with getNextSnapshot takes nothing down', () => {
    const { machine, actor, takeBack } = presenting()
    const before = actor.getSnapshot()
    const next = getNextSnapshot(machine, before, { type: 'provider.disposed' })
    expect(next.matches({ pending: { waitingForProvider: 'handOver' } })).toBe(true)
    expect(takeBack).not.toHaveBeenCalled()
    expect(actor.getSnapshot()).toBe(before)
    actor.send({ type: 'provider.disposed' })
    expect(takeBack).toHaveBeenCalledTimes(1)
    actor.stop()
  })

  it('a pending ask persists as plain JSON, deadline absolute', () => {
    const { actor } = presenting()
    const persisted: unknown = actor.getPersistedSnapshot()
    expect(JSON.parse(JSON.stringify(persisted))).toEqual(persisted)
    const { context } = persisted as { context: Record<string, unknown> }
    expect(context).toMatchObject({ askId: 'a1', startedAt: 1_000, deadline: 61_000 })
    for (const value of Object.values(context)) {
      expect(value === undefined || typeof value !== 'object' || Array.isArray(value)).toBe(true)
    }
    actor.stop()
  })

  it('a settlement committed elsewhere ends the ask with that outcome', async () => {
    const { actor } = presenting()
    actor.send({
      type: 'ask.settled',
      outcome: { status: 'answered', answer: { answers: [{ id: 'q', selected: ['Yes'] }] } },
    })
    expect(actor.getSnapshot().value).toBe('answered')
    expect(actor.getSnapshot().context.committedHere).toBe(false)
    await expect(toPromise(actor)).resolves.toEqual({
      status: 'answered',
      answer: { answers: [{ id: 'q', selected: ['Yes'] }] },
    })
  })
})

describe('what the provider is told', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    vi.setSystemTime(1_000)
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  function recorder() {
    const requests: ProviderRequest[] = []
    const provider: UserQuestionProvider = {
      ask: (request) => {
        requests.push(request)
        return new Promise(() => {})
      },
    }
    return { requests, provider }
  }

  it("hands the provider the ask's deadline, and none when the ask waits indefinitely", async () => {
    const seam = createUserQuestions({ timeoutMs: 5_000 })
    const { requests, provider } = recorder()
    seam.registerProvider(provider)
    void seam.ask({ questions }).catch(() => undefined)
    void seam.ask({ questions, timeoutMs: Infinity }).catch(() => undefined)
    expect(requests[0]!.deadline).toBe(6_000)
    expect('deadline' in requests[1]!).toBe(false)
    await seam.close()
  })

  it('a timeout carries the deadline and start time, and is the reason on the provider signal', async () => {
    const seam = createUserQuestions()
    const { requests, provider } = recorder()
    seam.registerProvider(provider)
    const asked = seam.ask({ questions, timeoutMs: 250 }).catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(250)
    const error = (await asked) as UserQuestionError
    expect(error.code).toBe('ASK_TIMEOUT')
    expect(error.details).toEqual({ deadline: 1_250, startedAt: 1_000 })
    expect(requests[0]!.signal.reason).toBe(error)
  })

  it('a hand-over tells the old provider why its question was taken away', async () => {
    const seam = createUserQuestions({ providerGraceMs: 1_000 })
    const first = recorder()
    const dispose = seam.registerProvider(first.provider)
    void seam.ask({ questions }).catch(() => undefined)
    dispose()
    const reason = first.requests[0]!.signal.reason as UserQuestionError
    expect(reason).toBeInstanceOf(UserQuestionError)
    expect(reason.code).toBe('ASK_ABORTED')
    expect(reason.details).toEqual({ reason: 'provider-disposed', handOver: true })
    expect(seam.pending()[0]!.state).toBe('waiting-for-provider')
    await seam.close()
  })
})
