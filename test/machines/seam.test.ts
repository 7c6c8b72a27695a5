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
    expect(actor.getSnapshot().context.registration).toBeUndefined()
    expect(emitted).toEqual([
      { type: 'provider.available', registration: 2 },
      { type: 'provider.disposed', registration: 2 },
    ])
  })

  it.each([
    ['vacant', []],
    ['held', [{ type: 'provider.registered', registration: 1 } as const]],
  ])(
    'closing a %s slot announces it once and frees it; nothing after moves it',
    (_name, before) => {
      const actor = createActor(seamMachine).start()
      for (const event of before) actor.send(event)
      const emitted: unknown[] = []
      actor.on('*', (event) => emitted.push(event))
      actor.send({ type: 'seam.closed' })
      actor.send({ type: 'seam.closed' })
      actor.send({ type: 'provider.registered', registration: 2 })
      expect(actor.getSnapshot().value).toBe('closed')
      expect(actor.getSnapshot().context.registration).toBeUndefined()
      expect(emitted).toEqual([{ type: 'seam.closed' }])
    },
  )
})
