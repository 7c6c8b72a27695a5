/**
 * relayClientMachine on XState's SimulatedClock: frames within the rate
 * limit are accepted, the first over it throttles the client with one
 * notice and is dropped with every frame until the pause ends, a quiet
 * window starts the count afresh, and the connection closes for the reason
 * its event names. Its windows are clamped to what a timer can hold.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock, createActor } from 'xstate'
import { MAX_DELAY_MS, relayClientMachine } from '../../src/machines/index.js'
import type { RelayClientEmitted } from '../../src/machines/index.js'

function start(maxFrames: number, windowMs: number) {
  const clock = new SimulatedClock()
  const actor = createActor(relayClientMachine, {
    input: { clientId: 'client-1', maxFrames, windowMs },
    clock,
  })
  const emitted: RelayClientEmitted[] = []
  actor.on('*', (event) => emitted.push(event))
  actor.start()
  const send = (...frames: string[]) => {
    for (const data of frames) actor.send({ type: 'frame.received', data })
  }
  const accepted = () =>
    emitted.flatMap((event) => (event.type === 'frame.accepted' ? [event.data] : []))
  const notices = () => emitted.filter((event) => event.type === 'client.throttled')
  return { actor, clock, send, accepted, notices }
}

describe('relayClientMachine', () => {
  it('accepts frames up to the limit in a window and hands each on as sent', () => {
    const { actor, send, accepted, notices } = start(3, 1_000)
    expect(actor.getSnapshot().value).toEqual({ open: 'quiet' })
    send('a', 'b', 'c')
    expect(accepted()).toEqual(['a', 'b', 'c'])
    expect(notices()).toEqual([])
    expect(actor.getSnapshot().value).toEqual({ open: 'counting' })
    expect(actor.getSnapshot().context.framesInWindow).toBe(3)
  })

  it('throttles at the first frame over the limit: one notice, every frame dropped and counted', () => {
    const { actor, send, accepted, notices } = start(2, 1_000)
    send('a', 'b', 'c', 'd', 'e')
    expect(accepted()).toEqual(['a', 'b'])
    expect(notices()).toEqual([{ type: 'client.throttled', maxFrames: 2, windowMs: 1_000 }])
    expect(actor.getSnapshot().value).toEqual({ open: 'throttled' })
    expect(actor.getSnapshot().context.dropped).toBe(3)
  })

  it('accepts again once the pause is over, counting from nothing', () => {
    const { actor, clock, send, accepted, notices } = start(2, 1_000)
    send('a', 'b', 'c')
    clock.increment(999)
    send('dropped')
    expect(actor.getSnapshot().value).toEqual({ open: 'throttled' })
    clock.increment(1)
    expect(actor.getSnapshot().value).toEqual({ open: 'quiet' })
    send('d', 'e')
    expect(accepted()).toEqual(['a', 'b', 'd', 'e'])
    expect(notices()).toHaveLength(1)
    expect(actor.getSnapshot().context).toMatchObject({ framesInWindow: 2, dropped: 2 })
  })

  it('starts a new window when one passes under the limit', () => {
    const { actor, clock, send, accepted, notices } = start(2, 1_000)
    send('a', 'b')
    clock.increment(1_000)
    expect(actor.getSnapshot().value).toEqual({ open: 'quiet' })
    expect(actor.getSnapshot().context.framesInWindow).toBe(0)
    send('c', 'd')
    expect(accepted()).toEqual(['a', 'b', 'c', 'd'])
    expect(notices()).toEqual([])
  })

  it.each([
    ['client.disconnected', 'disconnected'],
    ['client.congested', 'congested'],
    ['relay.disposed', 'relay-disposed'],
  ] as const)('closes on %s with the reason %s, from any open state', (type, reason) => {
    for (const frames of [[], ['a'], ['a', 'b', 'c']]) {
      const { actor, send } = start(2, 1_000)
      send(...frames)
      actor.send({ type })
      expect(actor.getSnapshot().status).toBe('done')
      expect(actor.getSnapshot().context.closeReason).toBe(reason)
    }
  })

  it.each([
    ['a rate window', ['a'], 'counting'],
    ['a throttle pause', ['a', 'b'], 'throttled'],
  ])('clamps %s longer than a timer can hold', (_, frames, state) => {
    const { actor, clock, send } = start(1, MAX_DELAY_MS * 4)
    send(...frames)
    clock.increment(MAX_DELAY_MS - 1)
    expect(actor.getSnapshot().value).toEqual({ open: state })
    clock.increment(1)
    expect(actor.getSnapshot().value).toEqual({ open: 'quiet' })
  })
})
