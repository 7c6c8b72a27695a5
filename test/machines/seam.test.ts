import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import { seamMachine } from '../../src/machines/index.js'

/** The provider slot (src/machines/seam.machine.ts) on its own. */

describe('seamMachine', () => {
  it('a stale disposer does not free the slot a later registration holds', () => {
    const actor = createActor(seamMachine).start()
    const emitted: unknown[] = []
    actor.on('*', (event) => emitted.push(event))
    actor.send({ type: 'provider.registered', registration: 2 })
    actor.send({ type: 'provider.disposed', registration: 1 })
    expect(actor.getSnapshot().value).toBe('active')
    expect(actor.getSnapshot().context.registration).toBe(2)
    actor.send({ type: 'provider.disposed', registration: 2 })
    expect(actor.getSnapshot().value).toBe('vacant')
    expect(emitted).toEqual([
      { type: 'provider.available', registration: 2 },
      { type: 'provider.disposed', registration: 2 },
    ])
  })
})
