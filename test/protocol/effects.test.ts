import { createActor, fromPromise, setup } from 'xstate'
import { describe, expect, it } from 'vitest'
import { ended, report } from '../../src/protocol/effects.js'
import { settle } from '../support/settle.js'

/*
 * src/protocol/effects.ts: how a seam waits for an actor to stop, and how an
 * effect's result reaches its actor. `close()` waits on `ended` for every ask
 * and presentation, whichever way each stopped.
 */

const waiting = setup({}).createMachine({ initial: 'idle', states: { idle: {} } })
const finishing = setup({}).createMachine({ initial: 'done', states: { done: { type: 'final' } } })
const failing = setup({
  actors: { fail: fromPromise(() => Promise.reject(new Error('fault'))) },
}).createMachine({ initial: 'run', states: { run: { invoke: { src: 'fail' } } } })

/** Whether `promise` has settled once the work queued now has run. */
async function hasSettled(promise: Promise<unknown>) {
  let settled = false
  void promise.then(() => (settled = true))
  await settle()
  return settled
}

describe('ended(actor)', () => {
  it('waits while the actor runs, and resolves when it is stopped by hand', async () => {
    const actor = createActor(waiting).start()
    const stopped = ended(actor)
    expect(await hasSettled(stopped)).toBe(false)
    actor.stop()
    await expect(stopped).resolves.toBeUndefined()
  })

  it('resolves at once for an actor stopped by hand before ended() was called (XState tells a late observer nothing)', async () => {
    const actor = createActor(waiting).start()
    actor.stop()
    expect(await hasSettled(ended(actor))).toBe(true)
  })

  it('resolves for an actor that reached its final state, and for one that failed', async () => {
    expect(await hasSettled(ended(createActor(finishing).start()))).toBe(true)
    const failed = createActor(failing)
    failed.subscribe({ error: () => undefined })
    failed.start()
    const stopped = ended(failed)
    await settle()
    expect(failed.getSnapshot().status).toBe('error')
    expect(await hasSettled(stopped)).toBe(true)
    expect(await hasSettled(ended(failed))).toBe(true)
  })
})

describe('report(self, pending, done, failed)', () => {
  it('tells a running actor how its effect went, and a stopped one nothing', async () => {
    const told: string[] = []
    let status = 'active'
    const self = { getSnapshot: () => ({ status }), send: (event: string) => told.push(event) }
    report(
      self,
      Promise.resolve(1),
      (value) => `done ${value}`,
      () => 'failed',
    )
    report(
      self,
      Promise.reject(new Error('x')),
      () => 'done',
      (error) => `failed ${String(error)}`,
    )
    await settle()
    expect(told).toEqual(['done 1', 'failed Error: x'])
    status = 'stopped'
    report(
      self,
      Promise.resolve(2),
      () => 'late',
      () => 'late',
    )
    await settle()
    expect(told).toHaveLength(2)
  })
})
