import { describe, expect, it } from 'vitest'
import { SimulatedClock, createActor, fromPromise, toPromise, waitFor } from 'xstate'
import { RESYNC_RETRY_MS, resyncMachine } from '../../src/notify/resync.machine.js'
import { deferred } from '../support/deferred.js'
import type { Deferred } from '../support/deferred.js'

/** A resync actor whose reads are recorded and settled by the test, on a simulated clock. */
function start() {
  const reads: Deferred<void>[] = []
  const clock = new SimulatedClock()
  const actor = createActor(
    resyncMachine.provide({
      actors: {
        resync: fromPromise(() => {
          const read = deferred<void>()
          reads.push(read)
          return read.promise
        }),
      },
    }),
    { clock },
  )
  actor.start()
  return { actor, reads, clock }
}

/** The state value once XState has handled what a settled read sent it. */
const settledTo = async (actor: ReturnType<typeof start>['actor'], value: unknown) =>
  (await waitFor(actor, (snapshot) => JSON.stringify(snapshot.value) === JSON.stringify(value)))
    .value

describe('resyncMachine', () => {
  it('reads once asked, and is idle when the read is done', async () => {
    const { actor, reads } = start()
    expect(actor.getSnapshot().value).toBe('idle')
    expect(reads).toHaveLength(0)
    actor.send({ type: 'read' })
    expect(actor.getSnapshot().value).toEqual({ reading: 'once' })
    expect(reads).toHaveLength(1)
    reads[0]!.resolve()
    expect(await settledTo(actor, 'idle')).toBe('idle')
    expect(reads).toHaveLength(1)
  })

  it('reads once more after a read during which it was asked again, however often', async () => {
    const { actor, reads } = start()
    actor.send({ type: 'read' })
    actor.send({ type: 'read' })
    actor.send({ type: 'read' })
    expect(actor.getSnapshot().value).toEqual({ reading: 'again' })
    expect(reads).toHaveLength(1)
    reads[0]!.resolve()
    await settledTo(actor, { reading: 'once' })
    expect(reads).toHaveLength(2)
    reads[1]!.resolve()
    await settledTo(actor, 'idle')
    expect(reads).toHaveLength(2)
  })

  it('reads again a retry delay after a read that failed, and not before', async () => {
    const { actor, reads, clock } = start()
    actor.send({ type: 'read' })
    reads[0]!.reject(new Error('store out of reach'))
    await settledTo(actor, 'retrying')
    clock.increment(RESYNC_RETRY_MS - 1)
    expect(reads).toHaveLength(1)
    clock.increment(1)
    expect(actor.getSnapshot().value).toEqual({ reading: 'once' })
    expect(reads).toHaveLength(2)
  })

  it('retries a failed read once, even when it was asked again during it', async () => {
    const { actor, reads, clock } = start()
    actor.send({ type: 'read' })
    actor.send({ type: 'read' })
    reads[0]!.reject(new Error('store out of reach'))
    await settledTo(actor, 'retrying')
    expect(reads).toHaveLength(1)
    clock.increment(RESYNC_RETRY_MS)
    expect(reads).toHaveLength(2)
  })

  it('reads at once when asked while it waits to retry, and the wait is over', async () => {
    const { actor, reads, clock } = start()
    actor.send({ type: 'read' })
    reads[0]!.reject(new Error('store out of reach'))
    await settledTo(actor, 'retrying')
    actor.send({ type: 'read' })
    expect(reads).toHaveLength(2)
    reads[1]!.resolve()
    await settledTo(actor, 'idle')
    clock.increment(RESYNC_RETRY_MS)
    expect(reads).toHaveLength(2)
  })

  it('closes at once when idle or waiting to retry, and no retry happens', async () => {
    const idle = start()
    idle.actor.send({ type: 'close' })
    expect(idle.actor.getSnapshot().status).toBe('done')

    const waiting = start()
    waiting.actor.send({ type: 'read' })
    waiting.reads[0]!.reject(new Error('store out of reach'))
    await settledTo(waiting.actor, 'retrying')
    waiting.actor.send({ type: 'close' })
    expect(waiting.actor.getSnapshot().status).toBe('done')
    waiting.clock.increment(RESYNC_RETRY_MS)
    expect(waiting.reads).toHaveLength(1)
  })

  it.each([
    ['is done', (read: Deferred<void>) => read.resolve()],
    ['fails', (read: Deferred<void>) => read.reject(new Error('store out of reach'))],
  ])(
    'closed during a read, waits for it, is closed once it %s, and reads no more',
    async (_, end) => {
      const { actor, reads, clock } = start()
      actor.send({ type: 'read' })
      actor.send({ type: 'read' })
      actor.send({ type: 'close' })
      expect(actor.getSnapshot().value).toEqual({ reading: 'closing' })
      // Asked again while closing: not taken up.
      actor.send({ type: 'read' })
      expect(actor.getSnapshot().value).toEqual({ reading: 'closing' })
      const closed = toPromise(actor)
      end(reads[0]!)
      await closed
      expect(actor.getSnapshot().value).toBe('closed')
      clock.increment(RESYNC_RETRY_MS)
      expect(reads).toHaveLength(1)
    },
  )

  it('fails to read without a resync actor provided', async () => {
    const actor = createActor(resyncMachine, { clock: new SimulatedClock() })
    actor.start()
    actor.send({ type: 'read' })
    expect(await settledTo(actor, 'retrying')).toBe('retrying')
  })
})
