/**
 * keepAliveMachine on XState's SimulatedClock: ticks with a rising progress
 * while the wait lasts, none without a token or an interval, none after
 * `wait.ended`, and its delay clamped to what a timer can hold.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock, createActor } from 'xstate'
import { KEEP_ALIVE_MS, MAX_DELAY_MS, keepAliveMachine } from '../../src/machines/index.js'
import type { KeepAliveEmitted, KeepAliveInput } from '../../src/machines/index.js'

function start(input: KeepAliveInput) {
  const clock = new SimulatedClock()
  const ticks: KeepAliveEmitted[] = []
  const actor = createActor(keepAliveMachine, { input, clock })
  actor.on('keepalive.tick', (tick) => ticks.push(tick))
  actor.start()
  return { actor, clock, ticks }
}

describe('keepAliveMachine', () => {
  it('ticks every interval while the wait lasts, each progress one higher', () => {
    const { actor, clock, ticks } = start({ intervalMs: KEEP_ALIVE_MS, progressToken: 'call-1' })
    expect(actor.getSnapshot().value).toBe('ticking')
    clock.increment(KEEP_ALIVE_MS - 1)
    expect(ticks).toEqual([])
    clock.increment(1)
    clock.increment(KEEP_ALIVE_MS)
    clock.increment(KEEP_ALIVE_MS)
    expect(ticks).toEqual([
      { type: 'keepalive.tick', progress: 1, elapsedMs: KEEP_ALIVE_MS },
      { type: 'keepalive.tick', progress: 2, elapsedMs: 2 * KEEP_ALIVE_MS },
      { type: 'keepalive.tick', progress: 3, elapsedMs: 3 * KEEP_ALIVE_MS },
    ])
  })

  it('stops for good when the wait ends: no tick after it', () => {
    const { actor, clock, ticks } = start({ intervalMs: 1_000, progressToken: 7 })
    clock.increment(1_000)
    actor.send({ type: 'wait.ended' })
    expect(actor.getSnapshot().status).toBe('done')
    clock.increment(10_000)
    expect(ticks.map((tick) => tick.progress)).toEqual([1])
  })

  it.each([
    ['no progress token', { intervalMs: 1_000 }],
    ['an interval of 0', { intervalMs: 0, progressToken: 'call-1' }],
    ['a negative interval', { intervalMs: -5, progressToken: 'call-1' }],
  ])('stays idle with %s, and stops when the wait ends', (_, input) => {
    const { actor, clock, ticks } = start(input)
    expect(actor.getSnapshot().value).toBe('idle')
    clock.increment(60_000)
    expect(ticks).toEqual([])
    actor.send({ type: 'wait.ended' })
    expect(actor.getSnapshot().status).toBe('done')
  })

  it('clamps an interval longer than a timer can hold', () => {
    const { clock, ticks } = start({ intervalMs: MAX_DELAY_MS * 4, progressToken: 'call-1' })
    clock.increment(MAX_DELAY_MS)
    expect(ticks).toEqual([{ type: 'keepalive.tick', progress: 1, elapsedMs: MAX_DELAY_MS }])
  })
})
