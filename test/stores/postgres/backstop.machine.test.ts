import { describe, expect, it } from 'vitest'
import { SimulatedClock, createActor, fromPromise, waitFor } from 'xstate'
import { MAX_DELAY_MS } from '../../../src/machines/index.js'
import { backstopMachine } from '../../../src/stores/postgres/backstop.machine.js'
import type {
  BackstopPollOutput,
  BackstopStanding,
} from '../../../src/stores/postgres/backstop.machine.js'
import { deferred } from '../../support/deferred.js'
import type { Deferred } from '../../support/deferred.js'

/** The machine with polls the test settles, and what it told and reported, on a simulated clock. */
function start(pollIntervalMs = 1_000) {
  const polls: { standing: BackstopStanding; result: Deferred<BackstopPollOutput> }[] = []
  const told: BackstopPollOutput[] = []
  const failures: unknown[] = []
  const clock = new SimulatedClock()
  const actor = createActor(
    backstopMachine.provide({
      actors: {
        poll: fromPromise<BackstopPollOutput, BackstopStanding>(({ input }) => {
          const result = deferred<BackstopPollOutput>()
          polls.push({ standing: input, result })
          return result.promise
        }),
      },
      actions: {
        tell: (_, output) => void told.push(output),
        reportFailure: (_, { error }) => void failures.push(error),
      },
    }),
    { input: { pollIntervalMs }, clock },
  )
  actor.start()
  return { actor, polls, told, failures, clock }
}

const found = (seenLast: number): BackstopPollOutput => ({
  standing: { seenLast, seenBeforeLast: seenLast, leases: null },
  found: { kind: 'baseline' },
  leasesChanged: false,
})

describe('backstopMachine', () => {
  it('polls an interval after start, from where the last good poll left it, one poll at a time', async () => {
    const { actor, polls, told, failures, clock } = start()
    clock.increment(5_000)
    expect(polls).toHaveLength(0)
    actor.send({ type: 'start' })
    actor.send({ type: 'start' })
    clock.increment(999)
    expect(polls).toHaveLength(0)
    clock.increment(1)
    expect(polls.map((poll) => poll.standing)).toEqual([{}])
    clock.increment(5_000)
    expect(polls).toHaveLength(1)
    polls[0]!.result.resolve(found(7))
    await waitFor(actor, (snapshot) => snapshot.matches('waiting'))
    expect(told).toEqual([found(7)])
    clock.increment(1_000)
    expect(polls[1]!.standing).toEqual(found(7).standing)
    const failure = new Error('statement timeout')
    polls[1]!.result.reject(failure)
    await waitFor(actor, (snapshot) => snapshot.matches('waiting'))
    expect(failures).toEqual([failure])
    clock.increment(1_000)
    // A failed poll moved nothing.
    expect(polls[2]!.standing).toEqual(found(7).standing)
  })

  it('hears nothing of a poll stopped midway, and starts afresh', async () => {
    const { actor, polls, told, failures, clock } = start()
    actor.send({ type: 'start' })
    clock.increment(1_000)
    polls[0]!.result.resolve(found(3))
    await waitFor(actor, (snapshot) => snapshot.matches('waiting'))
    clock.increment(1_000)
    actor.send({ type: 'stop' })
    polls[1]!.result.resolve(found(9))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(actor.getSnapshot().value).toBe('stopped')
    expect(told).toEqual([found(3)])
    clock.increment(10_000)
    expect(polls).toHaveLength(2)
    actor.send({ type: 'start' })
    clock.increment(1_000)
    polls[2]!.result.reject(new Error('unheard'))
    actor.send({ type: 'stop' })
    expect(polls[2]!.standing).toEqual({})
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(failures).toEqual([])
  })

  it('clamps an interval longer than a timer can hold', () => {
    const { actor, polls, clock } = start(MAX_DELAY_MS * 2)
    actor.send({ type: 'start' })
    clock.increment(60_000)
    expect(polls).toHaveLength(0)
    clock.increment(MAX_DELAY_MS - 60_000)
    expect(polls).toHaveLength(1)
  })

  it('fails each poll without a poll actor provided', async () => {
    const failures: unknown[] = []
    const clock = new SimulatedClock()
    const actor = createActor(
      backstopMachine.provide({
        actions: { reportFailure: (_, { error }) => void failures.push(error) },
      }),
      { input: { pollIntervalMs: 10 }, clock },
    )
    actor.start()
    actor.send({ type: 'start' })
    clock.increment(10)
    await waitFor(actor, (snapshot) => snapshot.matches('waiting'))
    expect(failures).toHaveLength(1)
  })
})
