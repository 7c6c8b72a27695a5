import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { createAbortFanout } from '../../src/protocol/abort-fanout.js'

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length

/** A fanout whose watchers are names, recording who heard which reason. */
function recorded() {
  const seen: unknown[] = []
  const fanout = createAbortFanout<{ name: string }>((watcher, reason) =>
    seen.push([watcher.name, reason]),
  )
  return { seen, fanout }
}

describe('createAbortFanout', () => {
  it('puts one listener on a signal however many watch it, and removes it with the last unwatch', () => {
    const { fanout } = recorded()
    const { signal } = new AbortController()
    const a = { name: 'a' }
    const b = { name: 'b' }
    fanout.watch(signal, a)
    fanout.watch(signal, b)
    expect(listeners(signal)).toBe(1)
    fanout.unwatch(signal, a)
    fanout.unwatch(signal, a)
    expect(listeners(signal)).toBe(1)
    fanout.unwatch(signal, b)
    expect(listeners(signal)).toBe(0)
    fanout.watch(signal, a)
    expect(listeners(signal)).toBe(1)
    fanout.unwatch(signal, a)
    expect(listeners(signal)).toBe(0)
  })

  it('hands every watcher over once with the reason, and leaves nothing behind', () => {
    const { seen, fanout } = recorded()
    const controller = new AbortController()
    const a = { name: 'a' }
    const twice = { name: 'watched twice' }
    fanout.watch(controller.signal, a)
    fanout.watch(controller.signal, { name: 'b' })
    fanout.watch(controller.signal, twice)
    fanout.watch(controller.signal, twice)
    fanout.unwatch(controller.signal, a)
    controller.abort('stop')
    controller.signal.dispatchEvent(new Event('abort'))
    expect(seen).toEqual([
      ['b', 'stop'],
      ['watched twice', 'stop'],
    ])
    expect(listeners(controller.signal)).toBe(0)
    fanout.unwatch(controller.signal, twice)
  })

  it('keeps signals apart, and an unwatch on the wrong signal changes nothing', () => {
    const { seen, fanout } = recorded()
    const first = new AbortController()
    const second = new AbortController()
    const one = { name: 'first' }
    const two = { name: 'second' }
    fanout.watch(first.signal, one)
    fanout.watch(second.signal, two)
    fanout.unwatch(first.signal, two)
    expect(listeners(first.signal)).toBe(1)
    first.abort('why')
    expect(seen).toEqual([['first', 'why']])
    expect(listeners(second.signal)).toBe(1)
    fanout.unwatch(second.signal, two)
    expect(listeners(second.signal)).toBe(0)
  })

  it('says INVALID_REQUEST for a signal it cannot listen to, and survives one whose remove throws', () => {
    const { fanout } = recorded()
    const hostile = {
      addEventListener() {
        throw new Error('no')
      },
    } as unknown as AbortSignal
    expect(() => fanout.watch(hostile, { name: 'a' })).toThrow(
      expect.objectContaining({
        code: 'INVALID_REQUEST',
        message: 'the signal cannot be listened to',
        details: { field: 'signal' },
      }),
    )
    const sticky = {
      addEventListener() {},
      removeEventListener() {
        throw new Error('no')
      },
    } as unknown as AbortSignal
    const a = { name: 'a' }
    fanout.watch(sticky, a)
    expect(() => fanout.unwatch(sticky, a)).not.toThrow()
  })

  it('hands over what an unreadable reason threw, as the reason', () => {
    const { seen, fanout } = recorded()
    const unreadable = new Error('reason getter broke')
    let fire!: () => void
    const signal = {
      addEventListener(_type: string, listener: () => void) {
        fire = listener
      },
      removeEventListener() {},
      get reason(): unknown {
        throw unreadable
      },
    } as unknown as AbortSignal
    fanout.watch(signal, { name: 'a' })
    fire()
    expect(seen).toEqual([['a', unreadable]])
  })
})
