/**
 * The bare askMachine's own rules, read through its final state and its
 * output: which final state an outcome leads to, how errors become data and
 * back, and how its presenting and committing steps settle.
 */
import { describe, expect, it, vi } from 'vitest'
import { createActor, toPromise } from 'xstate'
import {
  askMachine,
  callerAbortOutcome,
  createCommitOffer,
  createPresenter,
  endingOf,
  errorData,
  noProviderOutcome,
  outcomeError,
} from '../../src/machines/index.js'
import type {
  AskEvent,
  AskInput,
  AskOutcome,
  CommitInput,
  PresentInput,
} from '../../src/machines/index.js'
import { UserQuestionError } from '../../src/protocol/index.js'
import { askInput, questions } from './ask-input.js'

const input = askInput()
const rejection = (code: string, details?: Record<string, unknown>): AskOutcome => ({
  status: 'rejected',
  error: { code: code as never, message: `${code} happened`, ...(details ? { details } : {}) },
})
const answer = { answers: [{ id: 'q', selected: ['Yes'] }] }
const endings: [AskOutcome, string][] = [
  [{ status: 'answered', answer }, 'answered'],
  [rejection('ASK_CANCELLED'), 'cancelled'],
  [rejection('ASK_TIMEOUT'), 'timedOut'],
  [rejection('ASK_ABORTED'), 'aborted'],
  [rejection('SEAM_CLOSED'), 'aborted'],
  [rejection('NO_PROVIDER'), 'failed'],
  [rejection('STORE_FAILED'), 'failed'],
]

/**
 * A machine whose provider does what `present` does (by default: never answers)
 * and whose store commits what `commit` says (by default: a bare machine's, at once).
 */
function machineWith(
  commit?: (offered: CommitInput) => Promise<{ outcome: AskOutcome; won: boolean }>,
  present: (given: PresentInput) => unknown = () => new Promise(() => {}),
) {
  return askMachine.provide({
    actors: {
      presentToProvider: createPresenter(present as (given: PresentInput) => Promise<unknown>),
    },
    ...(commit === undefined ? {} : { actions: { offerCommit: createCommitOffer(commit) } }),
  })
}
/** A store that commits every outcome offered to it. */
const commitsOffer = async (offered: CommitInput) => ({ outcome: offered.outcome, won: true })

describe('askMachine: the final state an outcome leads to', () => {
  it.each(endings)('%j settled elsewhere ends in %s', async (outcome, ending) => {
    const actor = createActor(machineWith(), { input }).start()
    actor.send({ type: 'ask.settled', outcome })
    await toPromise(actor)
    expect(actor.getSnapshot().value).toBe(ending)
    expect(endingOf(outcome)).toBe(ending)
  })

  it.each(endings)(
    'a commit lost to %j ends in %s, not in the proposal’s state',
    async (outcome, ending) => {
      const actor = createActor(
        machineWith(async () => ({ outcome, won: false })),
        { input },
      ).start()
      actor.send({ type: 'ask.deadline' })
      await toPromise(actor)
      expect(actor.getSnapshot().value).toBe(ending)
      expect(actor.getSnapshot().context.committedHere).toBe(false)
    },
  )

  it('a commit won ends in the proposal’s state, whatever its code would say', async () => {
    const actor = createActor(machineWith(commitsOffer), { input }).start()
    actor.send({ type: 'seam.closed' })
    const output = await toPromise(actor)
    expect(actor.getSnapshot().value).toBe('aborted')
    expect(output).toMatchObject({ status: 'rejected', error: { code: 'SEAM_CLOSED' } })
  })
})

describe('askMachine: the final state of each local ending its commit won', () => {
  const failing = (error: UserQuestionError) => () => Promise.reject(error)
  const cases: {
    ending: string
    name: string
    extra?: Partial<AskInput>
    present?: () => unknown
    event?: AskEvent['type']
  }[] = [
    { ending: 'aborted', name: 'the caller’s abort', event: 'ask.aborted' },
    { ending: 'timedOut', name: 'the deadline', extra: { deadline: 9e12 }, event: 'ask.deadline' },
    { ending: 'aborted', name: 'the provider gone, with no grace', event: 'provider.disposed' },
    { ending: 'failed', name: 'no provider, and no wait', extra: { providerHere: false } },
    {
      ending: 'cancelled',
      name: 'a UI cancel',
      present: failing(new UserQuestionError('dismissed', 'ASK_CANCELLED')),
    },
    {
      ending: 'failed',
      name: 'a provider that failed',
      present: failing(new UserQuestionError('boom', 'PROVIDER_FAILED')),
    },
  ]
  it.each(cases)('$name ends in $ending', async ({ ending, extra, present, event }) => {
    const actor = createActor(machineWith(commitsOffer, present), {
      input: askInput(extra),
    }).start()
    if (event !== undefined) actor.send({ type: event } as never)
    await toPromise(actor)
    expect(actor.getSnapshot().value).toBe(ending)
    expect(actor.getSnapshot().context.committedHere).toBe(true)
  })
})

describe('askMachine: what its presenting step is given', () => {
  const seenBy = (extra: Partial<AskInput>) => {
    let seen: unknown
    const machine = machineWith(undefined, (given) => {
      seen = given
      return new Promise(() => {})
    })
    createActor(machine, { input: askInput(extra) })
      .start()
      .stop()
    return seen
  }

  it('names the agent and the deadline when the ask has them', () => {
    expect(seenBy({ agentId: 'agent-1', deadline: 5_000 })).toStrictEqual({
      askId: 'a1',
      questions,
      agentId: 'agent-1',
      deadline: 5_000,
    })
  })

  it('leaves out the agent and the deadline when the ask has neither', () => {
    expect(seenBy({})).toStrictEqual({ askId: 'a1', questions })
  })
})

describe('askMachine: its committing effect', () => {
  const failingStores: [string, () => Promise<never>][] = [
    ['rejects the commit', () => Promise.reject(new Error('disk full'))],
    [
      'throws before it returns a promise',
      () => {
        throw new Error('no connection')
      },
    ],
  ]
  it.each(failingStores)(
    'a store that %s ends the ask failed with STORE_FAILED',
    async (_, commit) => {
      const actor = createActor(machineWith(commit), { input }).start()
      actor.send({ type: 'ask.aborted' })
      const output = await toPromise(actor)
      expect(actor.getSnapshot().value).toBe('failed')
      expect(output).toMatchObject({ status: 'rejected', error: { code: 'STORE_FAILED' } })
    },
  )

  it('drops what the store says after the actor stopped', async () => {
    let release!: () => void
    const actor = createActor(
      machineWith(
        (offered) =>
          new Promise((resolve) => {
            release = () => resolve({ outcome: offered.outcome, won: true })
          }),
      ),
      { input },
    ).start()
    actor.send({ type: 'ask.aborted' })
    expect(actor.getSnapshot().value).toBe('committing')
    actor.stop()
    const send = vi.spyOn(actor, 'send')
    release()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(send).not.toHaveBeenCalled()
    expect(actor.getSnapshot().status).toBe('stopped')
  })

  it('a bare machine commits what it offers, in the same step', () => {
    const actor = createActor(askMachine, { input }).start()
    actor.send({ type: 'seam.closed' })
    expect(actor.getSnapshot().value).toBe('aborted')
    expect(actor.getSnapshot().context.committedHere).toBe(true)
  })

  it('ignores a commit result while nothing was offered', () => {
    const actor = createActor(machineWith(), { input }).start()
    expect(actor.getSnapshot().context.committedHere).toBe(false)
    actor.send({ type: 'commit.done', outcome: { status: 'answered', answer }, won: true })
    actor.send({ type: 'commit.failed' })
    expect(actor.getSnapshot().value).toEqual({ pending: 'presenting' })
    expect(actor.getSnapshot().context.committedHere).toBe(false)
    actor.stop()
  })
})

describe('askMachine: errors as data', () => {
  it('keeps no details key on an outcome that has no details', () => {
    expect(Object.keys(noProviderOutcome().error)).toEqual(['code', 'message'])
    expect(Object.keys(callerAbortOutcome().error)).toEqual(['code', 'message', 'details'])
  })

  it('rebuilds an error with its code, message and details; an unknown code is PROVIDER_FAILED', () => {
    const kept = outcomeError({ code: 'ASK_TIMEOUT', message: 'late', details: { deadline: 5 } })
    expect(kept).toBeInstanceOf(UserQuestionError)
    expect([kept.code, kept.message, kept.details]).toEqual([
      'ASK_TIMEOUT',
      'late',
      { deadline: 5 },
    ])
    const plain = outcomeError({ code: 'ASK_CANCELLED', message: 'no' })
    expect(plain.details).toBeUndefined()
    expect(outcomeError({ code: 'NOT_A_CODE' as never, message: 'odd' }).code).toBe(
      'PROVIDER_FAILED',
    )
  })

  it('reads an error into data, with a copy of its details and none when it has none', () => {
    const details = { rule: 'x' }
    const data = errorData(new UserQuestionError('bad', 'BAD_ANSWER', { details }))
    expect(data).toEqual({ code: 'BAD_ANSWER', message: 'bad', details: { rule: 'x' } })
    expect(data.details).not.toBe(details)
    expect(errorData(new UserQuestionError('gone', 'ASK_CANCELLED'))).toEqual({
      code: 'ASK_CANCELLED',
      message: 'gone',
    })
  })

  it('proposes the caller’s abort, the seam’s close and the timeout with their details', async () => {
    const offered: AskOutcome[] = []
    const run = async (
      event: Parameters<ReturnType<typeof createActor>['send']>[0],
      deadline?: number,
    ) => {
      const actor = createActor(
        machineWith((offer) => {
          offered.push(offer.outcome)
          return commitsOffer(offer)
        }),
        { input: askInput(deadline === undefined ? {} : { deadline }) },
      ).start()
      actor.send(event as never)
      return toPromise(actor)
    }
    await run({ type: 'ask.aborted' })
    await run({ type: 'seam.closed' })
    await run({ type: 'ask.deadline' }, 9_999_999_999_999)
    expect(offered).toEqual([
      rejectionOf('ASK_ABORTED', 'the caller aborted the ask', { reason: 'caller-aborted' }),
      rejectionOf('SEAM_CLOSED', 'the seam was closed while the ask was pending'),
      rejectionOf('ASK_TIMEOUT', 'nobody answered before the deadline', {
        deadline: 9_999_999_999_999,
        startedAt: 0,
      }),
    ])
  })
})

function rejectionOf(code: string, message: string, details?: Record<string, unknown>): AskOutcome {
  return {
    status: 'rejected',
    error:
      details === undefined
        ? { code: code as never, message }
        : { code: code as never, message, details },
  }
}

describe('askMachine: its presenting step', () => {
  const offeredBy = async (present: () => unknown) => {
    let offered: AskOutcome | undefined
    const machine = machineWith((offer) => {
      offered = offer.outcome
      return commitsOffer(offer)
    }, present)
    const actor = createActor(machine, { input }).start()
    const output = await toPromise(actor)
    return { offered, output, ending: actor.getSnapshot().value }
  }

  it('checks the answer: one that does not fit is BAD_ANSWER, proposed by the provider', async () => {
    const { offered, ending } = await offeredBy(async () => ({
      answers: [{ id: 'q', selected: ['Maybe'] }],
    }))
    expect(offered).toMatchObject({ status: 'rejected', error: { code: 'BAD_ANSWER' } })
    expect(ending).toBe('failed')
  })

  it('reads a provider that throws at once, or rejects with no coded error, as PROVIDER_FAILED', async () => {
    const thrown = await offeredBy(() => {
      throw new Error('boom')
    })
    const odd = await offeredBy(() => Promise.reject(new Error('not coded')))
    for (const { offered } of [thrown, odd]) {
      expect(offered).toEqual({
        status: 'rejected',
        error: { code: 'PROVIDER_FAILED', message: 'The question provider failed' },
      })
    }
  })

  it('a bare machine has no provider to call: its default step fails PROVIDER_FAILED', async () => {
    const actor = createActor(askMachine, { input }).start()
    const output = await toPromise(actor)
    expect(output).toMatchObject({
      status: 'rejected',
      error: { code: 'PROVIDER_FAILED', message: 'no provider is bound to this ask' },
    })
    // The code as committed, not as rebuilt for the caller (which reads an unknown code as this one).
    expect(actor.getSnapshot().context.outcome).toMatchObject({
      error: { code: 'PROVIDER_FAILED' },
    })
  })

  it('restores a presenting ask’s step from its persisted snapshot, still waiting on the provider', () => {
    const actor = createActor(machineWith(), { input }).start()
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as never
    actor.stop()
    const restored = createActor(machineWith(), { snapshot: persisted, input }).start()
    const [step] = Object.values(restored.getSnapshot().children)
    expect(step?.getSnapshot()).toMatchObject({ status: 'active', input: { askId: 'a1' } })
    restored.stop()
  })

  it('a step its ask leaves is stopped, and lets go of its input', () => {
    const actor = createActor(machineWith(), { input }).start()
    const [step] = Object.values(actor.getSnapshot().children)
    actor.send({ type: 'ask.aborted' })
    expect(step?.getSnapshot()).toMatchObject({ status: 'stopped', input: undefined })
  })

  it('keeps a presenting ask’s step in its persisted snapshot, as data', () => {
    const actor = createActor(machineWith(), { input }).start()
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as {
      children: Record<string, { snapshot: { status: string; input: { askId: string } } }>
    }
    const [step] = Object.values(persisted.children)
    expect(step?.snapshot.status).toBe('active')
    expect(step?.snapshot.input.askId).toBe('a1')
    actor.stop()
  })
})
