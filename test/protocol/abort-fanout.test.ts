import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { createAbortFanout } from '../../src/protocol/abort-fanout.js'

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length

describe('createAbortFanout', () => {
  it('puts one listener on a signal however many watch it, and removes it with the last unwatch', () => {
    const fanout = createAbortFanout()
    const { signal } = new AbortController()
    const unwatchA = fanout.watch(signal, () => undefined)
    const unwatchB = fanout.watch(signal, () => undefined)
    expect(listeners(signal)).toBe(1)
    unwatchA()
    unwatchA()
    expect(listeners(signal)).toBe(1)
    unwatchB()
    expect(listeners(signal)).toBe(0)
    const unwatchC = fanout.watch(signal, () => undefined)
    expect(listeners(signal)).toBe(1)
    unwatchC()
    expect(listeners(signal)).toBe(0)
  })

  it('calls every watcher once with the reason, and leaves nothing behind', () => {
    const fanout = createAbortFanout()
    const controller = new AbortController()
    const seen: unknown[] = []
    const unwatchA = fanout.watch(controller.signal, (reason) => seen.push(['a', reason]))
    fanout.watch(controller.signal, (reason) => seen.push(['b', reason]))
    const onAbort = () => seen.push(['same callback twice'])
    fanout.watch(controller.signal, onAbort)
    fanout.watch(controller.signal, onAbort)
    unwatchA()
    controller.abort('stop')
    controller.signal.dispatchEvent(new Event('abort'))
    expect(seen).toEqual([['b', 'stop'], ['same callback twice'], ['same callback twice']])
    expect(listeners(controller.signal)).toBe(0)
  })

  it('keeps signals apart', () => {
    const fanout = createAbortFanout()
    const first = new AbortController()
    const second = new AbortController()
    const seen: string[] = []
    fanout.watch(first.signal, () => seen.push('first'))
    const unwatch = fanout.watch(second.signal, () => seen.push('second'))
    first.abort()
    expect(seen).toEqual(['first'])
    expect(listeners(second.signal)).toBe(1)
    unwatch()
    expect(listeners(second.signal)).toBe(0)
  })
})
