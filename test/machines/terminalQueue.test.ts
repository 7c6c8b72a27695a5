/** terminalQueueMachine on its own: what it asks the provider to do, in which order. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor } from 'xstate'
import { terminalQueueMachine } from '../../src/machines/index.js'
import type { TerminalQueueEmitted } from '../../src/machines/index.js'

function queue() {
  const actor = createActor(terminalQueueMachine).start()
  const emitted: TerminalQueueEmitted[] = []
  actor.on('*', (event) => emitted.push(event))
  return { actor, emitted }
}

describe('terminalQueueMachine', () => {
  // The caller's turn is a timer: each test moves it when it needs to.
  beforeEach(() => {
    vi.useFakeTimers()
  })

  afterEach(() => {
    vi.useRealTimers()
  })

  it('shows one ask at a time, in arrival order, with the caller’s turn between two', () => {
    const { actor, emitted } = queue()
    actor.send({ type: 'ask.queued', askId: 'a' })
    actor.send({ type: 'ask.queued', askId: 'b' })
    actor.send({ type: 'ask.queued', askId: 'b' })
    expect(emitted).toEqual([{ type: 'prompt.requested', askId: 'a' }])
    expect(actor.getSnapshot().context).toEqual({ waiting: ['b'], current: 'a' })
    actor.send({ type: 'prompt.ended', askId: 'b' })
    expect(actor.getSnapshot().context.current).toBe('a')
    actor.send({ type: 'prompt.ended', askId: 'a' })
    expect(actor.getSnapshot().matches({ open: 'callerTurn' })).toBe(true)
    expect(emitted).toHaveLength(1)
    vi.advanceTimersByTime(0)
    expect(emitted.at(-1)).toEqual({ type: 'prompt.requested', askId: 'b' })
  })

  it('drops a waiting ask that is withdrawn, and takes the one on screen down', () => {
    const { actor, emitted } = queue()
    actor.send({ type: 'ask.queued', askId: 'a' })
    actor.send({ type: 'ask.queued', askId: 'b' })
    actor.send({ type: 'ask.withdrawn', askId: 'b' })
    actor.send({ type: 'ask.withdrawn', askId: 'a' })
    expect(emitted.slice(1)).toEqual([
      { type: 'ask.dropped', askId: 'b', reason: 'withdrawn' },
      { type: 'prompt.takenDown', askId: 'a', reason: 'withdrawn' },
    ])
    expect(actor.getSnapshot().matches({ open: 'takingDown' })).toBe(true)
  })

  it('ignores an ask queued twice or withdrawn unknown, and takes nothing down when nothing is on screen', () => {
    const { actor, emitted } = queue()
    actor.send({ type: 'ask.queued', askId: 'a' })
    // The ask on screen, queued again: it is not shown a second time.
    actor.send({ type: 'ask.queued', askId: 'a' })
    expect(actor.getSnapshot().context).toEqual({ waiting: [], current: 'a' })
    // An ask the queue does not hold, withdrawn: nothing to drop.
    actor.send({ type: 'ask.withdrawn', askId: 'elsewhere' })
    actor.send({ type: 'prompt.ended', askId: 'a' })
    // The caller's turn (its timer cannot fire inside this synchronous test): nothing is on screen when the provider goes.
    expect(actor.getSnapshot().matches({ open: 'callerTurn' })).toBe(true)
    actor.send({ type: 'provider.disposed' })
    expect(emitted).toEqual([{ type: 'prompt.requested', askId: 'a' }])
  })

  it('disposal drops the waiting asks in order, takes the current down, and refuses later ones', () => {
    const { actor, emitted } = queue()
    for (const askId of ['a', 'b', 'c']) actor.send({ type: 'ask.queued', askId })
    actor.send({ type: 'provider.disposed' })
    actor.send({ type: 'ask.queued', askId: 'd' })
    expect(emitted.slice(1)).toEqual([
      { type: 'ask.dropped', askId: 'b', reason: 'provider-disposed' },
      { type: 'ask.dropped', askId: 'c', reason: 'provider-disposed' },
      { type: 'prompt.takenDown', askId: 'a', reason: 'provider-disposed' },
      { type: 'ask.dropped', askId: 'd', reason: 'provider-disposed' },
    ])
    expect(actor.getSnapshot().context.waiting).toEqual([])
  })

  it('a closed input ends everything like disposal, with its own reason, and stays closed', () => {
    const { actor, emitted } = queue()
    actor.send({ type: 'ask.queued', askId: 'a' })
    actor.send({ type: 'input.closed' })
    actor.send({ type: 'ask.queued', askId: 'b' })
    expect(emitted.slice(1)).toEqual([
      { type: 'prompt.takenDown', askId: 'a', reason: 'input-closed' },
      { type: 'ask.dropped', askId: 'b', reason: 'input-closed' },
    ])
    expect(JSON.parse(JSON.stringify(actor.getPersistedSnapshot()))).toMatchObject({
      value: 'inputClosed',
    })
  })

  it('a provider disposed after the input closed: asks that come later are refused as disposed', () => {
    const { actor, emitted } = queue()
    actor.send({ type: 'input.closed' })
    actor.send({ type: 'provider.disposed' })
    actor.send({ type: 'ask.queued', askId: 'a' })
    expect(emitted).toEqual([{ type: 'ask.dropped', askId: 'a', reason: 'provider-disposed' }])
    expect(actor.getSnapshot().value).toBe('disposed')
  })

  it('drops a waiting ask withdrawn during the caller’s turn: it is never shown', () => {
    const { actor, emitted } = queue()
    actor.send({ type: 'ask.queued', askId: 'a' })
    actor.send({ type: 'ask.queued', askId: 'b' })
    actor.send({ type: 'prompt.ended', askId: 'a' })
    expect(actor.getSnapshot().matches({ open: 'callerTurn' })).toBe(true)
    actor.send({ type: 'ask.withdrawn', askId: 'b' })
    vi.advanceTimersByTime(0)
    expect(emitted).toEqual([
      { type: 'prompt.requested', askId: 'a' },
      { type: 'ask.dropped', askId: 'b', reason: 'withdrawn' },
    ])
    expect(actor.getSnapshot().context).toEqual({ waiting: [], current: null })
    expect(actor.getSnapshot().matches({ open: 'idle' })).toBe(true)
  })

  it('takes the caller’s turn only once the prompt taken down has ended, not at the end of another', () => {
    const { actor } = queue()
    actor.send({ type: 'ask.queued', askId: 'a' })
    actor.send({ type: 'ask.withdrawn', askId: 'a' })
    actor.send({ type: 'prompt.ended', askId: 'b' })
    expect(actor.getSnapshot().matches({ open: 'takingDown' })).toBe(true)
    expect(actor.getSnapshot().context.current).toBe('a')
    actor.send({ type: 'prompt.ended', askId: 'a' })
    expect(actor.getSnapshot().matches({ open: 'callerTurn' })).toBe(true)
    expect(actor.getSnapshot().context.current).toBeNull()
  })
})
