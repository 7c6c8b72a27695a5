/**
 * webhookDeliveryMachine alone, with its store and HTTP actors provided by
 * the test and time on XState's SimulatedClock: backoff, giving up, standing
 * by while another notifier holds the claim, dropping on settlement.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock, createActor, fromPromise, toPromise, waitFor } from 'xstate'
import {
  MAX_DELAY_MS,
  MAX_WEBHOOK_RETRY_MS,
  webhookDeliveryMachine,
  webhookRetryDelay,
} from '../../src/machines/index.js'
import { settle } from '../support/settle.js'
import type {
  WebhookAskRead,
  WebhookClaimInput,
  WebhookClaimOutput,
  WebhookDeliveryInput,
  WebhookFinishInput,
  WebhookSendOutput,
} from '../../src/machines/index.js'

function run(
  clock: SimulatedClock,
  actors: {
    claim?: (input: WebhookClaimInput) => WebhookClaimOutput['status'] | WebhookClaimOutput
    send?: () => WebhookSendOutput['result']
    ask?: WebhookAskRead['state']
    /** How many times each actor throws before it works: the store unreachable, or the notifier's own fault (`send`). */
    throws?: Partial<Record<'claim' | 'readAsk' | 'send' | 'finish', number>>
  },
  input: Partial<WebhookDeliveryInput> = {},
  {
    grantSlots = true,
    actions,
  }: {
    grantSlots?: boolean
    /** Actions replaced, to break the machine on purpose. */
    actions?: { endDropped: () => void }
  } = {},
) {
  const finished: WebhookFinishInput[] = []
  /** When each finish was written, on the test's clock. */
  const finishedAt: number[] = []
  const claims: WebhookClaimInput[] = []
  const attempts: number[] = []
  /** When each try was sent, on the test's clock. */
  const sentAt: number[] = []
  let sends = 0
  const throws = { ...actors.throws }
  /** Throws while `name` has failures left to give. */
  const mayThrow = (name: keyof typeof throws) => {
    if ((throws[name] ?? 0) > 0) {
      throws[name]! -= 1
      throw new Error(`${name} threw`)
    }
  }
  const machine = webhookDeliveryMachine.provide({
    actors: {
      claim: fromPromise<WebhookClaimOutput, WebhookClaimInput>(async ({ input: claim }) => {
        claims.push(claim)
        mayThrow('claim')
        const answer = actors.claim?.(claim) ?? 'claimed'
        if (answer === 'claimed') {
          return { at: clock.now(), status: 'claimed', expiresAt: clock.now() + claim.holdMs }
        }
        return typeof answer === 'string'
          ? ({ at: clock.now(), status: answer } as WebhookClaimOutput)
          : answer
      }),
      readAsk: fromPromise<WebhookAskRead, { askId: string }>(async () => {
        mayThrow('readAsk')
        return { at: clock.now(), state: actors.ask ?? 'pending' }
      }),
      send: fromPromise<
        WebhookSendOutput,
        { eventId: string; askId: string; attempt: number; dueAt: number }
      >(async ({ input: send }) => {
        sends += 1
        attempts.push(send.attempt)
        sentAt.push(clock.now())
        mayThrow('send')
        return { at: clock.now(), result: actors.send?.() ?? 'delivered' }
      }),
      finish: fromPromise<void, WebhookFinishInput>(async ({ input: finish }) => {
        finished.push(finish)
        finishedAt.push(clock.now())
        mayThrow('finish')
      }),
    },
    ...(actions === undefined ? {} : { actions }),
  })
  const actor = createActor(machine, {
    clock,
    input: {
      eventId: 'ask-1.pending',
      askId: 'ask-1',
      kind: 'pending',
      dueAt: clock.now(),
      now: clock.now(),
      attemptTimeoutMs: 1_000,
      giveUpAfterMs: 600_000,
      ...input,
    },
  })
  // One slot, always free: the notifier's pool is the notifier's (test/notify/).
  if (grantSlots) {
    actor.on('slot.wanted', () => actor.send({ type: 'slot.granted', at: clock.now() }))
  }
  actor.start()
  return { actor, finished, finishedAt, claims, attempts, sentAt, sends: () => sends }
}

/** Advances the clock in steps, letting the actors' promises settle between them. */
async function advance(clock: SimulatedClock, ms: number, stepMs = 1_000) {
  for (let passed = 0; passed < ms; passed += stepMs) {
    clock.increment(stepMs)
    await settle()
  }
}

describe('webhookRetryDelay', () => {
  it('doubles from a second up to the cap, with jitter from the event, the same every time', () => {
    for (let attempts = 1; attempts <= 30; attempts++) {
      const ceiling = Math.min(MAX_WEBHOOK_RETRY_MS, 1_000 * 2 ** (attempts - 1))
      const delay = webhookRetryDelay('ask-1.pending', attempts)
      expect(delay).toBeGreaterThanOrEqual(ceiling / 2)
      expect(delay).toBeLessThanOrEqual(ceiling)
      expect(webhookRetryDelay('ask-1.pending', attempts)).toBe(delay)
    }
    expect(webhookRetryDelay('ask-1.pending', 1e9)).toBeLessThanOrEqual(MAX_DELAY_MS)
    const spread = new Set(Array.from({ length: 20 }, (_, i) => webhookRetryDelay(`e${i}`, 6)))
    expect(spread.size).toBeGreaterThan(10)
  })
})

describe('webhookDeliveryMachine', () => {
  it('retries failed tries with backoff, keeps its claim over each wait, and gives up in the end', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    const { actor, finished, finishedAt, claims, attempts, sentAt, sends } = run(
      clock,
      { send: () => 'failed' },
      {
        giveUpAfterMs: 300_000,
      },
    )
    const done = toPromise(actor)
    await advance(clock, 400_000)
    expect(await done).toEqual({ ending: 'given-up', attempts: sends() })
    expect(sends()).toBeGreaterThan(5)
    // Each try is numbered, from 1, as the receiver sees it.
    expect(attempts).toEqual(Array.from({ length: sends() }, (_, index) => index + 1))
    // After the n-th failed try it waits the n-th retry delay (the test's clock moves in 1 s steps).
    for (let tries = 1; tries < sends(); tries++) {
      const waited = sentAt[tries]! - sentAt[tries - 1]!
      const delay = webhookRetryDelay('ask-1.pending', tries)
      expect(waited).toBeGreaterThanOrEqual(delay)
      expect(waited).toBeLessThan(delay + 1_000)
    }
    // An ask.pending is owed whether or not the ledger recorded it before.
    expect(claims.every((claim) => !claim.recordedOnly)).toBe(true)
    expect(finished).toEqual([
      { eventId: 'ask-1.pending', askId: 'ask-1', kind: 'pending', ending: 'given-up' },
    ])
    // It gives up instead of waiting a retry that would end past the limit, not after it.
    expect(finishedAt[0]! - 1_000_000).toBeLessThanOrEqual(300_000)
    expect(
      finishedAt[0]! - 1_000_000 + webhookRetryDelay('ask-1.pending', sends()),
    ).toBeGreaterThan(300_000)
    // Every claim after a failed try covers the wait ahead of the next one.
    expect(claims.slice(1).every((claim) => claim.holdMs > 1_000)).toBe(true)
  })

  it.each([
    ['an ask.pending', 'pending', false],
    ['an ask.settled', 'settled', true],
  ] as const)(
    'claims afresh, for the try alone, when its claim lapsed while it waited for a slot (%s)',
    async (_, kind, recordedOnly) => {
      const clock = new SimulatedClock()
      clock.set(1_000_000)
      // Each claim lasts a second: by the time the slot comes it no longer covers a try.
      const { actor, claims, sends } = run(
        clock,
        {
          claim: () => ({ at: clock.now(), status: 'claimed', expiresAt: clock.now() + 1_000 }),
          ask: kind,
        },
        { kind, eventId: `ask-1.${kind}` },
      )
      const done = toPromise(actor)
      await advance(clock, 1_000)
      expect(await done).toEqual({ ending: 'delivered', attempts: 1 })
      expect(sends()).toBe(1)
      // A settlement is claimed only where the ledger recorded it, the fresh claim too.
      expect(claims.map(({ holdMs, recordedOnly }) => ({ holdMs, recordedOnly }))).toEqual([
        { holdMs: 6_000, recordedOnly },
        { holdMs: 6_000, recordedOnly },
      ])
    },
  )

  it('stops at a receiver that says the hook is gone: no retry, the ending written as gone', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    const { actor, finished, sends } = run(clock, { send: () => 'gone' })
    const done = toPromise(actor)
    await advance(clock, 1_000)
    expect(await done).toEqual({ ending: 'gone', attempts: 1 })
    await advance(clock, 60_000)
    expect(sends()).toBe(1)
    expect(finished.map((finish) => finish.ending)).toEqual(['gone'])
  })

  it('sends on the claim it holds when that claim covers the try', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    const { actor, claims } = run(clock, {})
    const done = toPromise(actor)
    await advance(clock, 1_000)
    expect(await done).toEqual({ ending: 'delivered', attempts: 1 })
    expect(claims).toHaveLength(1)
    // Finished in the store: there is no claim left to release.
    expect(actor.getSnapshot().context.holding).toBe(false)
  })

  it('waits for its slot, and gives it back whichever way the try ends', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    const { actor, sends } = run(clock, { send: () => 'failed' }, {}, { grantSlots: false })
    const emitted: string[] = []
    actor.on('*', (event) => emitted.push(event.type))
    await advance(clock, 5_000)
    expect(actor.getSnapshot().value).toBe('waitingForSlot')
    expect(emitted).toEqual(['slot.wanted'])
    expect(sends()).toBe(0)
    // Its claim: a notifier that stops now releases it for another to take.
    expect(actor.getSnapshot().context.holding).toBe(true)
    actor.send({ type: 'slot.granted', at: clock.now() })
    await waitFor(actor, (snapshot) => snapshot.matches('claimed'))
    expect(sends()).toBe(1)
    // The failed try gave its slot back at once; after its retry wait it asks for one again.
    expect(emitted).toEqual(['slot.wanted', 'slot.freed'])
    await advance(clock, 2_000)
    expect(emitted).toEqual(['slot.wanted', 'slot.freed', 'slot.wanted'])
    expect(actor.getSnapshot().value).toBe('waitingForSlot')
    actor.stop()
  })

  it('stands by while another notifier holds the claim, then finds the event finished', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    let calls = 0
    const { actor, sends } = run(clock, {
      claim: () => {
        calls += 1
        return calls === 1
          ? { at: clock.now(), status: 'held', expiresAt: clock.now() + 20_000 }
          : { at: clock.now(), status: 'finished' }
      },
    })
    const done = toPromise(actor)
    await advance(clock, 10_000)
    expect(actor.getSnapshot().value).toBe('standingBy')
    // Not its claim: a notifier that stops now releases nothing for it.
    expect(actor.getSnapshot().context.holding).toBe(false)
    await advance(clock, 15_000)
    expect(await done).toEqual({ ending: 'elsewhere', attempts: 0 })
    expect(sends()).toBe(0)
  })

  it('drops a reminder whose ask settles before it is due, and one the store says settled', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    const early = run(
      clock,
      {},
      { kind: 'reminder', eventId: 'ask-1.reminder.1', dueAt: 1_060_000 },
    )
    // Not claimed yet: a notifier that stops now releases nothing for it.
    expect(early.actor.getSnapshot().context.holding).toBe(false)
    early.actor.send({ type: 'ask.settled' })
    expect(early.actor.getSnapshot().output).toEqual({ ending: 'dropped', attempts: 0 })
    expect(early.claims).toEqual([])

    const late = run(clock, { ask: 'settled' }, { kind: 'reminder', eventId: 'ask-1.reminder.1' })
    const done = toPromise(late.actor)
    await advance(clock, 3_000)
    expect(await done).toEqual({ ending: 'dropped', attempts: 0 })
    expect(late.sends()).toBe(0)
    expect(late.finished.map((finish) => finish.ending)).toEqual(['dropped'])
  })

  it('tries again after a wait when the fresh claim it takes after a late slot throws', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    let calls = 0
    // Each claim lasts a second, so a slot always comes too late for it; the second one throws.
    const { actor, claims, sends } = run(clock, {
      claim: () => {
        calls += 1
        if (calls === 2) throw new Error('claim threw')
        return { at: clock.now(), status: 'claimed', expiresAt: clock.now() + 1_000 }
      },
    })
    const done = toPromise(actor)
    await advance(clock, 1, 1)
    expect(actor.getSnapshot().value).toBe('storeUnavailable')
    await advance(clock, 2 * MAX_WEBHOOK_RETRY_MS, 10_000)
    expect(await done).toEqual({ ending: 'delivered', attempts: 1 })
    expect(sends()).toBe(1)
    expect(claims.length).toBeGreaterThan(2)
  })

  it('drops a reminder whose ask settles while it waits for a slot, without taking one', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    const { actor, sends, finished } = run(
      clock,
      {},
      { kind: 'reminder', eventId: 'ask-1.reminder.1' },
      { grantSlots: false },
    )
    const emitted: string[] = []
    actor.on('*', (event) => emitted.push(event.type))
    const done = toPromise(actor)
    await advance(clock, 1_000)
    expect(actor.getSnapshot().value).toBe('waitingForSlot')
    actor.send({ type: 'ask.settled' })
    expect(await done).toEqual({ ending: 'dropped', attempts: 0 })
    expect(emitted).toEqual(['slot.wanted'])
    expect(sends()).toBe(0)
    expect(finished.map((finish) => finish.ending)).toEqual(['dropped'])
  })

  it('drops a reminder whose ask settles while another notifier holds its claim: it does not claim it again', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    const { actor, claims, sends } = run(
      clock,
      { claim: () => ({ at: clock.now(), status: 'held', expiresAt: clock.now() + 20_000 }) },
      { kind: 'reminder', eventId: 'ask-1.reminder.1' },
    )
    const done = toPromise(actor)
    await advance(clock, 1_000)
    expect(actor.getSnapshot().value).toBe('standingBy')
    actor.send({ type: 'ask.settled' })
    expect(await done).toEqual({ ending: 'dropped', attempts: 0 })
    await advance(clock, 30_000)
    expect(claims).toHaveLength(1)
    expect(sends()).toBe(0)
  })

  it.each(['due', 'waitingForSlot', 'standingBy'] as const)(
    'keeps a settlement that hears its ask settle while %s: that is the news it carries',
    async (state) => {
      const clock = new SimulatedClock()
      clock.set(1_000_000)
      let claimsSoFar = 0
      const { actor, sends } = run(
        clock,
        {
          ask: 'settled',
          claim: () => {
            claimsSoFar += 1
            // Standing by: another notifier holds the first claim for 20 s.
            const heldElsewhere = state === 'standingBy' && claimsSoFar === 1
            return heldElsewhere
              ? { at: clock.now(), status: 'held', expiresAt: clock.now() + 20_000 }
              : 'claimed'
          },
        },
        {
          kind: 'settled',
          eventId: 'ask-1.settled',
          dueAt: state === 'due' ? 1_060_000 : 1_000_000,
        },
        { grantSlots: state !== 'waitingForSlot' },
      )
      const done = toPromise(actor)
      await advance(clock, 1_000)
      expect(actor.getSnapshot().value).toBe(state)
      actor.send({ type: 'ask.settled' })
      expect(actor.getSnapshot().value).toBe(state)
      if (state === 'waitingForSlot') actor.send({ type: 'slot.granted', at: clock.now() })
      await advance(clock, 60_000)
      expect(await done).toEqual({ ending: 'delivered', attempts: 1 })
      expect(sends()).toBe(1)
    },
  )

  it('holds a settlement back while the ask still reads pending, and sends it once it settles', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    const actors: { ask: WebhookAskRead['state'] } = { ask: 'pending' }
    const { actor, claims, sends } = run(clock, actors, {
      kind: 'settled',
      eventId: 'ask-1.settled',
    })
    const done = toPromise(actor)
    await advance(clock, 3_000)
    expect(actor.getSnapshot().value).toBe('awaitingSettlement')
    expect(sends()).toBe(0)
    actors.ask = 'settled'
    actor.send({ type: 'ask.settled' })
    await advance(clock, 1_000)
    expect(await done).toEqual({ ending: 'delivered', attempts: 1 })
    expect(claims.every((claim) => claim.recordedOnly)).toBe(true)
  })

  it('fails, writing nothing, where a way into finishing recorded no ending, instead of writing dropped', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    // The machine broken on purpose: the way in for an ask gone from the store records no ending.
    const { actor, finished } = run(
      clock,
      { ask: 'missing' },
      { kind: 'reminder' },
      { actions: { endDropped: () => undefined } },
    )
    const failed = toPromise(actor).then(
      () => undefined,
      (error: unknown) => error,
    )
    await advance(clock, 1_000)
    expect(await failed).toEqual(new Error('webhookDeliveryMachine: finishing with no ending'))
    expect(finished).toEqual([])
  })

  it.each(['pending', 'reminder', 'settled'] as const)(
    'drops an %s event whose ask is gone from the store',
    async (kind) => {
      const clock = new SimulatedClock()
      clock.set(1_000_000)
      const { actor, sends, finished } = run(clock, { ask: 'missing' }, { kind })
      const done = toPromise(actor)
      await advance(clock, 1_000)
      expect(await done).toEqual({ ending: 'dropped', attempts: 0 })
      expect(sends()).toBe(0)
      expect(finished.map((finish) => finish.ending)).toEqual(['dropped'])
    },
  )

  it('sends a settlement only where the ledger records it as owed', async () => {
    const clock = new SimulatedClock()
    clock.set(1_000_000)
    const { actor, claims, sends } = run(
      clock,
      { claim: () => 'unrecorded', ask: 'settled' },
      { kind: 'settled', eventId: 'ask-1.settled' },
    )
    const done = toPromise(actor)
    await advance(clock, 1_000)
    expect(await done).toEqual({ ending: 'dropped', attempts: 0 })
    expect(claims.map((claim) => claim.recordedOnly)).toEqual([true])
    expect(sends()).toBe(0)
  })

  it.each([
    ['its claim', 'claim', 'storeUnavailable', 1, 1],
    ['its read of the ask', 'readAsk', 'storeUnavailable', 1, 1],
    ['its send (a fault of the notifier’s own)', 'send', 'storeUnavailable', 2, 1],
    ['the write of its ending', 'finish', 'finishingAgain', 1, 2],
  ] as const)(
    'tries again after a wait when %s throws, and still ends delivered',
    async (_, failing, waitingIn, sent, finishes) => {
      const clock = new SimulatedClock()
      clock.set(1_000_000)
      const { actor, finished, sends } = run(clock, { throws: { [failing]: 1 } })
      const done = toPromise(actor)
      // Due now: the first timer fires at the next tick of the clock.
      await advance(clock, 1, 1)
      expect(actor.getSnapshot().value).toBe(waitingIn)
      await advance(clock, 2 * MAX_WEBHOOK_RETRY_MS, 10_000)
      expect(actor.getSnapshot().status).toBe('done')
      expect(await done).toEqual({ ending: 'delivered', attempts: 1 })
      expect(sends()).toBe(sent)
      expect(finished.map((finish) => finish.ending)).toEqual(Array(finishes).fill('delivered'))
    },
  )
})
