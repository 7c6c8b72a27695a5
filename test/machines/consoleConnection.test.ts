import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor } from 'xstate'
import {
  CONSOLE_RESTARTING_CODE,
  HOST_CLOSED_CODE,
  MAX_DELAY_MS,
  consoleConnectionMachine,
} from '../../src/machines/index.js'
import type { ConsoleConnectionInput } from '../../src/machines/index.js'

/** An actor with its emitted requests recorded in order. */
function start(input: ConsoleConnectionInput = {}) {
  const actor = createActor(consoleConnectionMachine, { input })
  const emitted: string[] = []
  actor.on('socket.open', () => emitted.push('open'))
  actor.on('frame.send', ({ data }) => emitted.push(`send ${data}`))
  actor.on('asks.unoffered', ({ rpcIds }) => emitted.push(`unoffered ${rpcIds.join(',')}`))
  actor.start()
  return { actor, emitted }
}

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  vi.useRealTimers()
})

describe('consoleConnectionMachine', () => {
  it('opens a socket at once and is online when it opens', () => {
    const { actor, emitted } = start()
    expect(actor.getSnapshot().value).toBe('connecting')
    expect(emitted).toEqual(['open'])
    actor.send({ type: 'socket.opened' })
    expect(actor.getSnapshot().value).toEqual({ online: 'live' })
  })

  it('backs off between reconnects, doubling up to the cap', async () => {
    const { actor, emitted } = start({ retryBaseMs: 100, retryMaxMs: 400, giveUpMs: 60_000 })
    actor.send({ type: 'socket.opened' })
    actor.send({ type: 'socket.closed', code: 1006 })
    expect(actor.getSnapshot().value).toEqual({ reconnecting: 'waiting' })
    const waits: number[] = []
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = emitted.length
      let waited = 0
      while (emitted.length === before) {
        await vi.advanceTimersByTimeAsync(10)
        waited += 10
      }
      waits.push(waited)
      actor.send({ type: 'socket.closed', code: 1006 })
    }
    expect(waits).toEqual([100, 200, 400, 400, 400])
  })

  it('resets the backoff once online again', async () => {
    const { actor } = start({ retryBaseMs: 100, retryMaxMs: 5000 })
    actor.send({ type: 'socket.closed', code: 1006 })
    await vi.advanceTimersByTimeAsync(100)
    actor.send({ type: 'socket.closed', code: 1006 })
    await vi.advanceTimersByTimeAsync(200)
    expect(actor.getSnapshot().context.attempt).toBe(2)
    actor.send({ type: 'socket.opened' })
    expect(actor.getSnapshot().value).toEqual({ online: 'live' })
    expect(actor.getSnapshot().context.attempt).toBe(0)
  })

  type Actor = ReturnType<typeof start>['actor']
  it.each([
    ['connecting for the first time', async () => {}, 1],
    ['online', async (actor: Actor) => actor.send({ type: 'socket.opened' }), 1],
    [
      'trying again after a drop',
      async (actor: Actor) => {
        actor.send({ type: 'socket.opened' })
        actor.send({ type: 'socket.closed', code: 1006 })
        await vi.advanceTimersByTimeAsync(250)
        expect(actor.getSnapshot().value).toEqual({ reconnecting: 'trying' })
      },
      2,
    ],
    [
      'trying again after the console said it restarts',
      async (actor: Actor) => {
        actor.send({ type: 'socket.opened' })
        actor.send({ type: 'socket.closed', code: CONSOLE_RESTARTING_CODE })
        await vi.advanceTimersByTimeAsync(250)
        expect(actor.getSnapshot().value).toEqual({ restarting: 'trying' })
      },
      2,
    ],
  ] as const)(
    'ends for good when the host closes the session while %s, with no reconnect',
    async (_when, reach, opens) => {
      const { actor, emitted } = start()
      await reach(actor)
      actor.send({ type: 'socket.closed', code: HOST_CLOSED_CODE })
      expect(actor.getSnapshot().status).toBe('done')
      expect(actor.getSnapshot().output).toEqual({ ended: 'host-closed' })
      await vi.advanceTimersByTimeAsync(120_000)
      expect(emitted).toEqual(Array(opens).fill('open'))
    },
  )

  it('ends when the host stays unreachable for the give-up time, then stops trying', async () => {
    const { actor, emitted } = start({ retryBaseMs: 250, retryMaxMs: 5000, giveUpMs: 30_000 })
    actor.send({ type: 'socket.opened' })
    actor.send({ type: 'socket.closed', code: 1006 })
    // Every attempt fails at once, as a refused connection does.
    actor.on('socket.open', () =>
      queueMicrotask(() => actor.send({ type: 'socket.closed', code: 1006 })),
    )
    await vi.advanceTimersByTimeAsync(29_999)
    expect(actor.getSnapshot().status).toBe('active')
    await vi.advanceTimersByTimeAsync(1)
    expect(actor.getSnapshot().status).toBe('done')
    expect(actor.getSnapshot().output).toEqual({ ended: 'host-unreachable' })
    const attempts = emitted.length
    // 250 + 500 + 1000 + 2000 + 4000 + 5000 × 4 = 27.75 s: nine failed attempts, then no more.
    expect(attempts).toBe(1 + 9)
    await vi.advanceTimersByTimeAsync(300_000)
    expect(emitted).toHaveLength(attempts)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a reconnect that succeeds within the budget cancels the give-up', async () => {
    const { actor } = start({ retryBaseMs: 100, giveUpMs: 1000 })
    actor.send({ type: 'socket.closed', code: 1006 })
    await vi.advanceTimersByTimeAsync(100)
    actor.send({ type: 'socket.opened' })
    await vi.advanceTimersByTimeAsync(5000)
    expect(actor.getSnapshot().value).toEqual({ online: 'live' })
  })

  it('sends a frame while online, and drops one sent offline (its ask sends it again when offered)', async () => {
    const { actor, emitted } = start({ retryBaseMs: 100 })
    actor.send({ type: 'socket.opened' })
    actor.send({ type: 'send', frame: 'A' })
    expect(emitted).toEqual(['open', 'send A'])
    actor.send({ type: 'socket.closed', code: 1006 })
    actor.send({ type: 'send', frame: 'B' })
    await vi.advanceTimersByTimeAsync(100)
    actor.send({ type: 'socket.opened' })
    actor.send({ type: 'ask.offered', rpcId: 'a' })
    expect(emitted).toEqual(['open', 'send A', 'open'])
  })

  it('clamps a wait longer than a timer can hold instead of retrying or giving up at once', async () => {
    const { actor, emitted } = start({
      retryBaseMs: MAX_DELAY_MS * 2,
      retryMaxMs: MAX_DELAY_MS * 4,
      giveUpMs: MAX_DELAY_MS * 8,
    })
    actor.send({ type: 'socket.closed', code: 1006 })
    await vi.advanceTimersByTimeAsync(60_000)
    expect(actor.getSnapshot().value).toEqual({ reconnecting: 'waiting' })
    expect(emitted).toEqual(['open'])
    // Both waits are cut to the longest a timer holds; the outage's budget ends first.
    await vi.advanceTimersByTimeAsync(MAX_DELAY_MS - 60_000)
    expect(actor.getSnapshot().output).toEqual({ ended: 'host-unreachable' })
  })

  describe('after the console said it restarts (1012)', () => {
    const timing = { retryBaseMs: 100, retryMaxMs: 100, giveUpMs: 1000, restartGiveUpMs: 5000 }
    /** Every attempt fails at once, as a refused connection does while the console is down. */
    const refuseEvery = (actor: Actor) =>
      actor.on('socket.open', () =>
        queueMicrotask(() => actor.send({ type: 'socket.closed', code: 1006 })),
      )

    it("keeps trying past a drop's budget, for a budget of its own, then ends unreachable", async () => {
      const { actor, emitted } = start(timing)
      actor.send({ type: 'socket.opened' })
      actor.send({ type: 'socket.closed', code: CONSOLE_RESTARTING_CODE })
      expect(actor.getSnapshot().value).toEqual({ restarting: 'waiting' })
      refuseEvery(actor)
      await vi.advanceTimersByTimeAsync(4999)
      expect(actor.getSnapshot().matches('restarting')).toBe(true)
      await vi.advanceTimersByTimeAsync(1)
      expect(actor.getSnapshot().output).toEqual({ ended: 'host-unreachable' })
      // One attempt every 100 ms (the wait, then a refusal at once) for 5 s: about fifty.
      expect(emitted.length).toBeGreaterThan(40)
    })

    it('starts its budget afresh when the console says so while the page retries after a drop', async () => {
      const { actor } = start(timing)
      actor.send({ type: 'socket.closed', code: 1006 })
      await vi.advanceTimersByTimeAsync(800)
      actor.send({ type: 'socket.closed', code: 1006 })
      await vi.advanceTimersByTimeAsync(50)
      expect(actor.getSnapshot().value).toEqual({ reconnecting: 'waiting' })
      await vi.advanceTimersByTimeAsync(50)
      expect(actor.getSnapshot().value).toEqual({ reconnecting: 'trying' })
      // At 900 ms of a 1,000 ms budget: the restart's 5,000 ms count from here.
      actor.send({ type: 'socket.closed', code: CONSOLE_RESTARTING_CODE })
      expect(actor.getSnapshot().value).toEqual({ restarting: 'waiting' })
      await vi.advanceTimersByTimeAsync(4999)
      expect(actor.getSnapshot().status).toBe('active')
      await vi.advanceTimersByTimeAsync(1)
      expect(actor.getSnapshot().output).toEqual({ ended: 'host-unreachable' })
    })

    it("is back online when the console returns, and a later drop has a drop's budget again", async () => {
      const { actor } = start(timing)
      actor.send({ type: 'socket.opened' })
      actor.send({ type: 'socket.closed', code: CONSOLE_RESTARTING_CODE })
      await vi.advanceTimersByTimeAsync(100)
      expect(actor.getSnapshot().value).toEqual({ restarting: 'trying' })
      actor.send({ type: 'socket.opened' })
      expect(actor.getSnapshot().value).toEqual({ online: 'live' })
      actor.send({ type: 'socket.closed', code: 1006 })
      expect(actor.getSnapshot().value).toEqual({ reconnecting: 'waiting' })
      refuseEvery(actor)
      await vi.advanceTimersByTimeAsync(1000)
      expect(actor.getSnapshot().output).toEqual({ ended: 'host-unreachable' })
    })

    it('stays restarting, under the same budget, when an attempt is refused or the console says it again', async () => {
      const { actor } = start(timing)
      actor.send({ type: 'socket.closed', code: CONSOLE_RESTARTING_CODE })
      await vi.advanceTimersByTimeAsync(100)
      actor.send({ type: 'socket.closed', code: 1006 })
      expect(actor.getSnapshot().value).toEqual({ restarting: 'waiting' })
      await vi.advanceTimersByTimeAsync(100)
      actor.send({ type: 'socket.closed', code: CONSOLE_RESTARTING_CODE })
      expect(actor.getSnapshot().value).toEqual({ restarting: 'waiting' })
      await vi.advanceTimersByTimeAsync(4800)
      expect(actor.getSnapshot().output).toEqual({ ended: 'host-unreachable' })
    })
  })

  describe('after a reconnect, the asks the host does not offer again', () => {
    const timing = { retryBaseMs: 100, retryMaxMs: 100, giveUpMs: 60_000, reofferGraceMs: 1000 }
    /** Online with `shown` offered, then a drop and a reconnect. */
    async function reconnected(shown: string[], input: ConsoleConnectionInput = timing) {
      const started = start(input)
      started.actor.send({ type: 'socket.opened' })
      for (const rpcId of shown) started.actor.send({ type: 'ask.offered', rpcId })
      started.actor.send({ type: 'socket.closed', code: 1006 })
      await vi.advanceTimersByTimeAsync(100)
      started.actor.send({ type: 'socket.opened' })
      return started
    }

    it('is live at once on a first connection, with nothing shown to wait for', async () => {
      const { actor, emitted } = start(timing)
      actor.send({ type: 'socket.opened' })
      expect(actor.getSnapshot().value).toEqual({ online: 'live' })
      await vi.advanceTimersByTimeAsync(5000)
      expect(emitted).toEqual(['open'])
    })

    it('reports the ones not offered within the grace, once, and forgets them', async () => {
      const { actor, emitted } = await reconnected(['a', 'b', 'c'])
      expect(actor.getSnapshot().value).toEqual({ online: 'replaying' })
      actor.send({ type: 'ask.offered', rpcId: 'b' })
      await vi.advanceTimersByTimeAsync(999)
      expect(emitted).toEqual(['open', 'open'])
      await vi.advanceTimersByTimeAsync(1)
      expect(emitted).toEqual(['open', 'open', 'unoffered a,c'])
      expect(actor.getSnapshot().value).toEqual({ online: 'live' })
      expect(actor.getSnapshot().context).toMatchObject({ shown: ['b'], unoffered: [] })
      // Only `b` is awaited after the next reconnect.
      actor.send({ type: 'socket.closed', code: 1006 })
      await vi.advanceTimersByTimeAsync(100)
      actor.send({ type: 'socket.opened' })
      await vi.advanceTimersByTimeAsync(1000)
      expect(emitted.at(-1)).toBe('unoffered b')
    })

    it('is live as soon as every shown ask is offered again, and reports none', async () => {
      const { actor, emitted } = await reconnected(['a', 'b'])
      actor.send({ type: 'ask.offered', rpcId: 'a' })
      expect(actor.getSnapshot().value).toEqual({ online: 'replaying' })
      actor.send({ type: 'ask.offered', rpcId: 'b' })
      expect(actor.getSnapshot().value).toEqual({ online: 'live' })
      await vi.advanceTimersByTimeAsync(5000)
      expect(emitted).toEqual(['open', 'open'])
    })

    it('counts an ask offered again while its answer goes out as offered', async () => {
      const { actor, emitted } = await reconnected(['a'])
      actor.send({ type: 'socket.closed', code: 1006 })
      await vi.advanceTimersByTimeAsync(100)
      actor.send({ type: 'socket.opened' })
      actor.send({ type: 'ask.offered', rpcId: 'a' })
      actor.send({ type: 'send', frame: 'A' })
      expect(actor.getSnapshot().value).toEqual({ online: 'live' })
      await vi.advanceTimersByTimeAsync(5000)
      expect(emitted).toEqual(['open', 'open', 'open', 'send A'])
    })

    it('does not wait for an ask the page no longer shows', async () => {
      const { actor, emitted } = start(timing)
      actor.send({ type: 'socket.opened' })
      for (const rpcId of ['a', 'b', 'c']) actor.send({ type: 'ask.offered', rpcId })
      actor.send({ type: 'ask.left', rpcId: 'a' })
      expect(actor.getSnapshot().context.shown).toEqual(['b', 'c'])
      actor.send({ type: 'socket.closed', code: 1006 })
      await vi.advanceTimersByTimeAsync(100)
      actor.send({ type: 'socket.opened' })
      expect(actor.getSnapshot().context.unoffered).toEqual(['b', 'c'])
      // Left during the replay: `b` is not reported.
      actor.send({ type: 'ask.left', rpcId: 'b' })
      await vi.advanceTimersByTimeAsync(1000)
      expect(emitted).toEqual(['open', 'open', 'unoffered c'])
      // Nothing is left to wait for after the next reconnect.
      actor.send({ type: 'socket.closed', code: 1006 })
      await vi.advanceTimersByTimeAsync(100)
      actor.send({ type: 'socket.opened' })
      expect(actor.getSnapshot().value).toEqual({ online: 'live' })
    })

    it('starts the grace afresh when the socket drops during it', async () => {
      const { actor, emitted } = await reconnected(['a'])
      await vi.advanceTimersByTimeAsync(900)
      actor.send({ type: 'socket.closed', code: 1006 })
      await vi.advanceTimersByTimeAsync(100)
      actor.send({ type: 'socket.opened' })
      await vi.advanceTimersByTimeAsync(999)
      expect(emitted).toEqual(['open', 'open', 'open'])
      await vi.advanceTimersByTimeAsync(1)
      expect(emitted.at(-1)).toBe('unoffered a')
    })

    it('shows again, and awaits after the next reconnect, a reported ask the host offers later', async () => {
      const { actor, emitted } = await reconnected(['a'])
      await vi.advanceTimersByTimeAsync(1000)
      actor.send({ type: 'ask.offered', rpcId: 'a' })
      expect(actor.getSnapshot().context.shown).toEqual(['a'])
      actor.send({ type: 'socket.closed', code: 1006 })
      await vi.advanceTimersByTimeAsync(100)
      actor.send({ type: 'socket.opened' })
      await vi.advanceTimersByTimeAsync(1000)
      expect(emitted).toEqual(['open', 'open', 'unoffered a', 'open', 'unoffered a'])
    })

    it('defaults to 10 s, and clamps a grace longer than a timer can hold', async () => {
      const { emitted } = await reconnected(['a'], { retryBaseMs: 100 })
      await vi.advanceTimersByTimeAsync(9999)
      expect(emitted).toEqual(['open', 'open'])
      await vi.advanceTimersByTimeAsync(1)
      expect(emitted.at(-1)).toBe('unoffered a')
      const long = await reconnected(['a'], { ...timing, reofferGraceMs: MAX_DELAY_MS * 2 })
      await vi.advanceTimersByTimeAsync(60_000)
      expect(long.emitted).toEqual(['open', 'open'])
      await vi.advanceTimersByTimeAsync(MAX_DELAY_MS - 60_000)
      expect(long.emitted.at(-1)).toBe('unoffered a')
    })
  })

  it('has plain JSON context, so it persists', () => {
    const { actor } = start()
    expect(actor.getSnapshot().context).toMatchObject({ shown: [], unoffered: [] })
    actor.send({ type: 'ask.offered', rpcId: 'a' })
    const persisted = actor.getPersistedSnapshot()
    expect(JSON.parse(JSON.stringify(persisted))).toEqual(persisted)
  })
})
