/**
 * askseam/notify (DESIGN §13) against a real receiver on loopback that
 * verifies every delivery with the `standardwebhooks` package, on the
 * memory store: what is sent, how it is signed, and what is retried.
 */
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import type { StoreChange } from '../../src/protocol/store/index.js'
import { startNotifier } from '../../src/notify/index.js'
import type { NotifierOptions } from '../../src/notify/index.js'
import { answered, newAsk } from '../../src/protocol/store/contract-fixtures.js'
import { deferred } from '../support/deferred.js'
import { startReceiver, testSecret, until } from '../support/webhook-receiver.js'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function receiver(secret: string, answer?: Parameters<typeof startReceiver>[1]) {
  const started = await startReceiver(secret, answer)
  cleanups.push(() => started.close())
  return started
}

function notifier(options: NotifierOptions) {
  const started = startNotifier(options)
  cleanups.push(() => started.close())
  return started
}

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Waits until the asynchronous `check` holds. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 20_000
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** The ledger's verdict on an event: how another notifier's claim finds it. */
async function verdict(store: AskStore, eventId: string, askId: string) {
  return store.notifications?.claim({ eventId, askId, holder: 'probe', now: 0, expiresAt: 0 })
}

describe('startNotifier', () => {
  it('posts ask.pending and, once the ask settles, ask.settled, each verified by standardwebhooks', async () => {
    const secret = testSecret()
    const hook = await receiver(secret)
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret }, consoleUrl: 'http://127.0.0.1:4000/' })
    const ask = newAsk({ key: 'deploy-1', agentId: 'planner', deadline: Date.now() + 60_000 })
    await store.admit(ask)
    await until(() => hook.receipts.length === 1, 'ask.pending')
    const [pending] = hook.receipts
    expect(pending?.id).toBe(`${ask.askId}.pending`)
    expect(pending?.payload).toEqual({
      type: 'ask.pending',
      timestamp: new Date(ask.startedAt).toISOString(),
      data: {
        askId: ask.askId,
        key: 'deploy-1',
        agentId: 'planner',
        questions: [{ id: 'db', question: 'Which database?' }],
        deadline: ask.deadline,
        link: `http://127.0.0.1:4000/#ask=${ask.askId}`,
      },
    })
    const { record } = (await store.settle(ask.askId, answered, Date.now()))!
    await until(() => hook.receipts.length === 2, 'ask.settled')
    expect(hook.receipts[1]?.id).toBe(`${ask.askId}.settled`)
    expect(hook.receipts[1]?.payload.type).toBe('ask.settled')
    expect(hook.receipts[1]?.payload.timestamp).toBe(new Date(record.settledAt!).toISOString())
    expect(hook.receipts[1]?.payload.data.outcome).toEqual(answered)
    expect(hook.rejected).toEqual([])
  })

  it('announces the asks of a seam on the store, which keeps working beside it', async () => {
    const secret = testSecret()
    const hook = await receiver(secret)
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret } })
    const seam = createUserQuestions({ store })
    cleanups.push(() => seam.close())
    let answer:
      ((value: { answers: Array<{ id: string; selected: string[] }> }) => void) | undefined
    seam.registerProvider({
      ask: () =>
        new Promise((resolve) => {
          answer = resolve
        }),
    })
    const asked = seam.ask({
      questions: [
        { id: 'db', question: 'Which database?', options: [{ label: 'A' }, { label: 'B' }] },
      ],
    })
    await until(() => hook.receipts.some((r) => r.type === 'ask.pending'), 'ask.pending')
    await until(() => answer !== undefined, 'the provider')
    answer?.({ answers: [{ id: 'db', selected: ['B'] }] })
    await expect(asked).resolves.toEqual({ answers: [{ id: 'db', selected: ['B'] }] })
    await until(() => hook.receipts.some((r) => r.type === 'ask.settled'), 'ask.settled')
  })

  it('retries a 500 with the same webhook-id until a 200, and delivers once', async () => {
    const secret = testSecret()
    const hook = await receiver(secret, ({ count }) => (count === 1 ? 500 : 200))
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret } })
    const ask = newAsk()
    await store.admit(ask)
    await until(() => hook.delivered().size === 1, 'the retry')
    expect(hook.receipts.map((r) => [r.id, r.status])).toEqual([
      [`${ask.askId}.pending`, 500],
      [`${ask.askId}.pending`, 200],
    ])
    // The receiver answered; the ending is written just after.
    await eventually(
      async () => (await verdict(store, `${ask.askId}.pending`, ask.askId))?.status === 'finished',
      'the ending',
    )
    expect(await verdict(store, `${ask.askId}.pending`, ask.askId)).toEqual({
      status: 'finished',
      ending: 'delivered',
    })
  })

  it('retries a receiver that hangs past the timeout, and a seam on the store keeps answering', async () => {
    const secret = testSecret()
    const hook = await receiver(secret, ({ count }) => (count === 1 ? 'hang' : 200))
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret }, attemptTimeoutMs: 300 })
    const ask = newAsk()
    await store.admit(ask)
    await until(() => hook.delivered().size === 1, 'the retry after the timeout')
    expect(hook.receipts.map((r) => r.id)).toEqual([`${ask.askId}.pending`, `${ask.askId}.pending`])
    // The seam beside it is not held up by the hanging receiver.
    const seam = createUserQuestions({ store })
    cleanups.push(() => seam.close())
    seam.registerProvider({ ask: async () => ({ answers: [{ id: 'q', selected: ['Yes'] }] }) })
    await expect(
      seam.ask({
        questions: [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }],
      }),
    ).resolves.toEqual({ answers: [{ id: 'q', selected: ['Yes'] }] })
  })

  it('retries a URL that refuses connections until a receiver listens there', async () => {
    const secret = testSecret()
    const port = await freePort()
    const store = createMemoryStore()
    notifier({ store, webhook: { url: `http://127.0.0.1:${port}/hook`, secret } })
    const ask = newAsk()
    await store.admit(ask)
    // The event is claimed for its first try, which is refused.
    await eventually(async () => {
      const unfinished = await store.notifications?.unfinished()
      return unfinished?.[0]?.holder !== undefined
    }, 'the claim')
    const { Webhook } = await import('standardwebhooks')
    const verifier = new Webhook(secret)
    const ids: string[] = []
    const { createServer: createHttp } = await import('node:http')
    const server = createHttp((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        verifier.verify(Buffer.concat(chunks).toString(), request.headers as Record<string, string>)
        ids.push(String(request.headers['webhook-id']))
        response.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
    await until(() => ids.length === 1, 'the delivery once the receiver listens')
    expect(ids).toEqual([`${ask.askId}.pending`])
  })

  it('stops retrying an event answered 410 Gone', async () => {
    const secret = testSecret()
    const hook = await receiver(secret, () => 410)
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret } })
    const ask = newAsk()
    await store.admit(ask)
    await until(() => hook.receipts.length === 1, 'the one try')
    await eventually(
      async () => (await verdict(store, `${ask.askId}.pending`, ask.askId))?.status === 'finished',
      'the ending',
    )
    expect(await verdict(store, `${ask.askId}.pending`, ask.askId)).toEqual({
      status: 'finished',
      ending: 'gone',
    })
    // Its ask.pending was not delivered: its settlement is not owed either.
    await store.settle(ask.askId, answered, Date.now())
    const other = newAsk()
    await store.admit(other)
    await until(() => hook.receipts.length === 2, 'the next ask')
    expect(hook.receipts.map((r) => r.id)).toEqual([
      `${ask.askId}.pending`,
      `${other.askId}.pending`,
    ])
  })

  it('does not follow a redirect: it counts as a failure and is retried at the signed URL', async () => {
    const secret = testSecret()
    const elsewhere = await receiver(secret)
    const hook = await receiver(secret, ({ count }) =>
      count < 3 ? { status: 302, headers: { location: elsewhere.url } } : 200,
    )
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret } })
    const ask = newAsk()
    await store.admit(ask)
    await until(() => hook.delivered().size === 1, 'the third try')
    expect(hook.receipts.map((r) => r.status)).toEqual([302, 302, 200])
    expect(elsewhere.receipts).toEqual([])
  })
})

describe('startNotifier sends at most maxInFlight at once', () => {
  it('holds the rest until a slot is free, and delivers every event once', async () => {
    const secret = testSecret()
    let hold = true
    const hook = await receiver(secret, () => (hold ? 'hang' : 200))
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret }, maxInFlight: 3 })
    const asks = Array.from({ length: 8 }, () => newAsk())
    for (const ask of asks) await store.admit(ask)
    // Three at a time: each batch is held open until the receiver answers it.
    for (const batch of [3, 6, 8]) {
      await until(() => hook.receipts.length === batch, `${batch} requests`)
      if (batch === 8) hold = false
      hook.answerHeld(200)
    }
    await until(() => hook.delivered().size === 8, 'every ask.pending')
    expect(hook.mostOpen()).toBe(3)
    expect(hook.receipts).toHaveLength(8)
    expect([...hook.delivered().values()].every((receipts) => receipts.length === 1)).toBe(true)
  })

  it('gives the slot of a failed try to the next event waiting, and retries after it', async () => {
    const secret = testSecret()
    const hook = await receiver(secret, () => 'hang')
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret }, maxInFlight: 1 })
    const first = newAsk()
    const second = newAsk()
    await store.admit(first)
    await until(() => hook.receipts.length === 1, 'the first try')
    await store.admit(second)
    hook.answerHeld(500)
    await until(() => hook.receipts.length === 2, 'the second event')
    hook.answerHeld(200)
    await until(() => hook.receipts.length === 3, 'the retry')
    hook.answerHeld(200)
    await until(() => hook.delivered().size === 2, 'both delivered')
    expect(hook.receipts.map((r) => [r.id, r.status])).toEqual([
      [`${first.askId}.pending`, 500],
      [`${second.askId}.pending`, 200],
      [`${first.askId}.pending`, 200],
    ])
    expect(hook.mostOpen()).toBe(1)
  })

  it('passes over an event dropped while it waited: the slot goes to the next', async () => {
    const secret = testSecret()
    const hook = await receiver(secret, () => 'hang')
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret }, maxInFlight: 1 })
    const [sent, dropped, next] = [newAsk(), newAsk(), newAsk()]
    await store.admit(sent)
    await until(() => hook.receipts.length === 1, 'the first try')
    await store.admit(dropped)
    await store.admit(next)
    // Both are claimed, waiting for the one slot.
    await eventually(async () => {
      const unfinished = await store.notifications?.unfinished()
      return unfinished?.filter((entry) => entry.holder !== undefined).length === 3
    }, 'the waiting events claimed')
    // Settled while its ask.pending waits for the slot: it is never sent, nor is its settlement.
    await store.settle(dropped.askId, answered, Date.now())
    hook.answerHeld(200)
    await until(() => hook.receipts.length === 2, 'the next event')
    hook.answerHeld(200)
    await until(() => hook.delivered().size === 2, 'both delivered')
    expect(hook.receipts.map((r) => r.id)).toEqual([
      `${sent.askId}.pending`,
      `${next.askId}.pending`,
    ])
    await eventually(
      async () =>
        (await verdict(store, `${dropped.askId}.pending`, dropped.askId))?.status === 'finished',
      'the dropped event',
    )
    expect(await verdict(store, `${dropped.askId}.pending`, dropped.askId)).toEqual({
      status: 'finished',
      ending: 'dropped',
    })
  })
})

describe('startNotifier keeps its connections', () => {
  it('sends one event after another on one connection, reading each answer to its end', async () => {
    const secret = testSecret()
    const hook = await receiver(secret, () => ({ status: 200, body: 'ok '.repeat(20_000) }))
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret }, maxInFlight: 1 })
    for (let sent = 1; sent <= 5; sent += 1) {
      await store.admit(newAsk())
      await until(() => hook.delivered().size === sent, `event ${sent}`)
    }
    expect(hook.connections()).toBe(1)
  })
})

describe('startNotifier across a restart', () => {
  it('leaves an event it was sending to the next notifier, which delivers it at once', async () => {
    const secret = testSecret()
    const hook = await receiver(secret, ({ count }) => (count === 1 ? 'hang' : 200))
    const store = createMemoryStore()
    const first = startNotifier({ store, webhook: { url: hook.url, secret } })
    const ask = newAsk()
    await store.admit(ask)
    await until(() => hook.receipts.length === 1, 'the first try, held open')
    await first.close()
    // Closing released the claim: nothing is held until it lapses.
    expect(await store.notifications?.unfinished()).toEqual([
      { eventId: `${ask.askId}.pending`, askId: ask.askId },
    ])
    notifier({ store, webhook: { url: hook.url, secret } })
    await until(() => hook.delivered().size === 1, 'the delivery by the next notifier')
    expect(hook.receipts.map((r) => r.id)).toEqual([`${ask.askId}.pending`, `${ask.askId}.pending`])
  })

  it('sends ask.settled for an ask that settled while no notifier ran, once its ask.pending was delivered', async () => {
    const secret = testSecret()
    const hook = await receiver(secret)
    const store = createMemoryStore()
    const first = startNotifier({ store, webhook: { url: hook.url, secret } })
    const announced = newAsk()
    await store.admit(announced)
    await until(() => hook.delivered().size === 1, 'ask.pending')
    // The ledger's one unfinished event is the settlement owed, not `ask.pending` still being finished.
    await eventually(async () => {
      const unfinished = await store.notifications?.unfinished()
      return unfinished?.length === 1 && unfinished[0]?.eventId === `${announced.askId}.settled`
    }, 'the settlement owed')
    await first.close()
    await store.settle(announced.askId, answered, Date.now())
    notifier({ store, webhook: { url: hook.url, secret } })
    await until(() => hook.delivered().size === 2, 'ask.settled after the restart')
    expect(hook.receipts.map((r) => r.id)).toEqual([
      `${announced.askId}.pending`,
      `${announced.askId}.settled`,
    ])
    expect(hook.receipts[1]?.payload.data.outcome).toEqual(answered)
  })
})

/** Advances `clock` a step at a time, with a real turn for I/O between steps, until `check` holds. */
async function runClockUntil(
  clock: SimulatedClock,
  check: () => boolean,
  what: string,
  { stepMs = 1_000, limitMs = 3_600_000 } = {},
): Promise<void> {
  const end = clock.now() + limitMs
  while (!check()) {
    if (clock.now() > end) throw new Error(`timed out (simulated) waiting for ${what}`)
    clock.increment(stepMs)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** A simulated clock set to now. */
function clockFromNow(): SimulatedClock {
  const clock = new SimulatedClock()
  clock.set(Date.now())
  return clock
}

/** A verifying receiver, its secret, and a simulated clock set to now. */
async function receiverAndClock() {
  const secret = testSecret()
  return { secret, hook: await receiver(secret), clock: clockFromNow() }
}

describe('startNotifier on a simulated clock', () => {
  it('delivers every event to a receiver that was down for ten minutes once it is back', async () => {
    const secret = testSecret()
    const port = await freePort()
    const clock = clockFromNow()
    const store = createMemoryStore()
    notifier({ store, webhook: { url: `http://127.0.0.1:${port}/hook`, secret }, clock })
    const asks = [newAsk(), newAsk(), newAsk()]
    for (const ask of asks) await store.admit(ask)
    const downUntil = clock.now() + 600_000
    await runClockUntil(clock, () => clock.now() >= downUntil, 'ten minutes')
    const hook = await startReceiverOn(secret, port)
    await runClockUntil(clock, () => hook.delivered().size === 3, 'every ask.pending')
    expect([...hook.delivered().keys()].sort()).toEqual(
      asks.map((a) => `${a.askId}.pending`).sort(),
    )
    for (const receipts of hook.delivered().values()) expect(receipts).toHaveLength(1)
  })

  it('announces nothing for an ask answered within notifyAfterMs', async () => {
    const { secret, hook, clock } = await receiverAndClock()
    const store = createMemoryStore()
    notifier({ store, webhook: { url: hook.url, secret }, clock, notifyAfterMs: 30_000 })
    const quick = newAsk({ startedAt: clock.now() })
    await store.admit(quick)
    await runClockUntil(clock, () => clock.now() >= quick.startedAt + 10_000, 'ten seconds')
    await store.settle(quick.askId, answered, clock.now())
    // A later ask's ask.pending falls due after the first one's would have.
    const slow = newAsk({ startedAt: clock.now() })
    await store.admit(slow)
    await runClockUntil(clock, () => hook.receipts.length > 0, 'the later ask.pending')
    expect(hook.receipts.map((r) => r.id)).toEqual([`${slow.askId}.pending`])
  })

  it('reminds and escalates while the ask waits, and stops once it settles', async () => {
    const { secret, hook, clock } = await receiverAndClock()
    const store = createMemoryStore()
    notifier({
      store,
      webhook: { url: hook.url, secret },
      clock,
      remindEveryMs: 60_000,
      maxReminders: 5,
      escalateAfterMs: 150_000,
    })
    const ask = newAsk({ startedAt: clock.now() })
    await store.admit(ask)
    const ids = () => hook.receipts.map((r) => r.id)
    await runClockUntil(clock, () => ids().includes(`${ask.askId}.escalated`), 'the escalation')
    expect(ids()).toEqual([
      `${ask.askId}.pending`,
      `${ask.askId}.reminder.1`,
      `${ask.askId}.reminder.2`,
      `${ask.askId}.escalated`,
    ])
    await store.settle(ask.askId, answered, clock.now())
    await runClockUntil(clock, () => ids().includes(`${ask.askId}.settled`), 'ask.settled')
    // Reminder 3 was due 30 s after the escalation; a later ask's reminder comes after it would have.
    const later = newAsk({ startedAt: clock.now() })
    await store.admit(later)
    await runClockUntil(
      clock,
      () => ids().includes(`${later.askId}.reminder.1`),
      'a later reminder',
    )
    expect(ids().filter((id) => id.startsWith(ask.askId))).toEqual([
      `${ask.askId}.pending`,
      `${ask.askId}.reminder.1`,
      `${ask.askId}.reminder.2`,
      `${ask.askId}.escalated`,
      `${ask.askId}.settled`,
    ])
  })
})

/**
 * A memory store whose reads of pending asks see it as it was when they
 * began (`readBegun`), and answer once `readLands` resolves.
 */
function heldReads() {
  const inner = createMemoryStore()
  const readBegun = deferred()
  const readLands = deferred()
  const store = Object.create(inner) as AskStore
  store.pending = () => {
    const read = inner.pending()
    readBegun.resolve()
    return readLands.promise.then(() => read)
  }
  return { inner, store, readBegun, readLands }
}

describe('startNotifier reading the store late', () => {
  it('does not take up an ask that settled while its read of pending asks was under way', async () => {
    const { secret, hook, clock } = await receiverAndClock()
    const { inner, store, readBegun, readLands } = heldReads()
    const settled = newAsk({ startedAt: clock.now() })
    await inner.admit(settled)
    notifier({
      store,
      webhook: { url: hook.url, secret },
      clock,
      notifyAfterMs: 1_000,
      remindEveryMs: 60_000,
      maxReminders: 2,
    })
    await readBegun.promise
    await inner.settle(settled.askId, answered, clock.now())
    readLands.resolve()
    // A later ask's reminders fall due after any of the settled ask's would have.
    const later = newAsk({ startedAt: clock.now() })
    await inner.admit(later)
    const ids = () => hook.receipts.map((r) => r.id)
    await runClockUntil(clock, () => ids().includes(`${later.askId}.reminder.2`), 'the reminders')
    expect(ids().filter((id) => id.startsWith(settled.askId))).toEqual([])
    for (const event of ['pending', 'reminder.1', 'reminder.2']) {
      const eventId = `${settled.askId}.${event}`
      await expect(verdict(store, eventId, settled.askId), eventId).resolves.toEqual({
        status: 'claimed',
      })
    }
  })
})

describe('startNotifier reading the store whole again', () => {
  it('reads again a second after a read of the store that failed, and announces what it finds', async () => {
    const { secret, hook, clock } = await receiverAndClock()
    const inner = createMemoryStore()
    let failures = 1
    const tries: number[] = []
    const store = Object.create(inner) as AskStore
    store.pending = () => {
      tries.push(clock.now())
      return failures-- > 0 ? Promise.reject(new Error('store out of reach')) : inner.pending()
    }
    // Admitted before the notifier started: only a read of the store finds it.
    const waiting = newAsk({ startedAt: clock.now() })
    await inner.admit(waiting)
    notifier({ store, webhook: { url: hook.url, secret }, clock, notifyAfterMs: 1_000 })
    await runClockUntil(clock, () => hook.receipts.length > 0, 'the ask.pending', { stepMs: 100 })
    expect(hook.receipts.map((r) => r.id)).toEqual([`${waiting.askId}.pending`])
    expect(tries).toHaveLength(2)
    // A second after the failure was heard, which the clock's first step may have come before.
    expect(tries[1]! - tries[0]!).toBeGreaterThanOrEqual(1_000)
    expect(tries[1]! - tries[0]!).toBeLessThanOrEqual(1_100)
  })

  it('reads the store whole when its feed says it missed changes, and takes up the ask it missed', async () => {
    const { secret, hook, clock } = await receiverAndClock()
    const inner = createMemoryStore()
    const missed = newAsk({ startedAt: clock.now() })
    let tell: ((change: StoreChange) => void) | undefined
    const store = Object.create(inner) as AskStore
    // A feed that loses the missed ask's admission, as one that dropped its connection does.
    store.watch = (listener) => {
      tell = listener
      return inner.watch((change) => {
        if (change.type !== 'ask.admitted' || change.record.askId !== missed.askId) listener(change)
      })
    }
    notifier({ store, webhook: { url: hook.url, secret }, clock, notifyAfterMs: 1_000 })
    await inner.admit(missed)
    await runClockUntil(clock, () => clock.now() >= missed.startedAt + 5_000, 'five seconds')
    expect(hook.receipts).toEqual([])
    tell!({ type: 'resync' })
    await runClockUntil(clock, () => hook.receipts.length > 0, 'the ask.pending', { stepMs: 100 })
    expect(hook.receipts.map((r) => r.id)).toEqual([`${missed.askId}.pending`])
  })

  it('closes while a read is under way once it ends, and starts nothing the read found', async () => {
    const { secret, hook, clock } = await receiverAndClock()
    const { inner, store, readBegun, readLands } = heldReads()
    // Due at once: a read that landed before the close would announce it.
    const owed = newAsk({ startedAt: clock.now() - 60_000 })
    await inner.admit(owed)
    let unwatched = 0
    const watch = store.watch.bind(store)
    store.watch = (listener) => {
      const unwatch = watch(listener)
      return () => {
        unwatched += 1
        unwatch()
      }
    }
    const started = startNotifier({ store, webhook: { url: hook.url, secret }, clock })
    await readBegun.promise
    const closed: string[] = []
    const closing = started.close().then(() => closed.push('first'))
    // A second close is the same close: it too answers once the read ends.
    const again = started.close().then(() => closed.push('second'))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(closed).toEqual([])
    readLands.resolve()
    await Promise.all([closing, again])
    expect(closed).toEqual(['first', 'second'])
    expect(unwatched).toBe(1)
    await runClockUntil(clock, () => clock.now() >= owed.startedAt + 600_000, 'ten minutes', {
      stepMs: 10_000,
    })
    expect(hook.receipts).toEqual([])
  })
})

async function startReceiverOn(secret: string, port: number) {
  const { Webhook } = await import('standardwebhooks')
  const verifier = new Webhook(secret)
  const receipts: Array<{ id: string; status: number }> = []
  const { createServer: createHttp } = await import('node:http')
  const server = createHttp((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      verifier.verify(Buffer.concat(chunks).toString(), request.headers as Record<string, string>)
      receipts.push({ id: String(request.headers['webhook-id']), status: 200 })
      response.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return {
    delivered() {
      const byId = new Map<string, typeof receipts>()
      for (const r of receipts) byId.set(r.id, [...(byId.get(r.id) ?? []), r])
      return byId
    },
  }
}
