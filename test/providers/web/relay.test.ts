import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgentRegistry, createUserQuestions } from '../../../src/protocol/index.js'
import type { UserQuestionError } from '../../../src/protocol/index.js'
import { createRelay } from '../../../src/providers/web/index.js'
import {
  canonicalAnswer,
  cancel,
  fakeClient,
  flush,
  questions,
  respond,
  track,
} from './relay-harness.js'
import type { FakeClient } from './relay-harness.js'

afterEach(() => {
  vi.useRealTimers()
})

function setup(options: Parameters<typeof createRelay<FakeClient>>[1] = {}, seamOptions = {}) {
  const agents = createAgentRegistry()
  const seam = createUserQuestions({ agents, ...seamOptions })
  const relay = createRelay<FakeClient>(seam, options)
  const agent = (id: string) => {
    const instance = { id }
    agents.enter(instance)
    return instance
  }
  return { seam, relay, agent }
}

/** A relay with one client connected, and one ask it was sent. */
async function askedOfOneClient() {
  const parts = setup()
  const client = fakeClient()
  const connection = parts.relay.connect(client)
  const asked = track(parts.seam.ask({ questions }))
  await flush()
  const rpcId = client.framesOf('question/requested')[0]!.rpcId
  return { ...parts, client, connection, asked, rpcId }
}

describe('createRelay', () => {
  it('registers itself as the seam provider', () => {
    const { seam } = setup()
    expect(() => seam.registerProvider({ ask: async () => ({ answers: [] }) })).toThrow(
      expect.objectContaining({ code: 'DUPLICATE_PROVIDER' }),
    )
  })

  it('sends question/requested keyed by the seam askId and resolves the caller with the canonical answer', async () => {
    const { seam, relay } = setup()
    const client = fakeClient()
    const connection = relay.connect(client)
    const asked = track(seam.ask({ questions }))
    await flush()
    const [requested] = client.framesOf('question/requested')
    expect(requested).toEqual({
      type: 'question/requested',
      rpcId: seam.pending()[0]?.askId,
      questions,
    })
    expect(requested).not.toHaveProperty('sessionId')
    connection.receive(respond(requested!.rpcId))
    // Pending until the store committed the answer: only then accepted, and resolved.
    expect(relay.pending()).toHaveLength(1)
    expect(client.frames.slice(1)).toEqual([])
    await flush()
    expect(asked.value).toEqual(canonicalAnswer)
    expect(relay.pending()).toEqual([])
    expect(client.frames.slice(1)).toEqual([
      { type: 'receipt', rpcId: requested!.rpcId, accepted: true },
      { type: 'question/resolved', rpcId: requested!.rpcId, outcome: 'answered' },
    ])
  })

  it('carries the ask deadline on question/requested, and says accepted only after the commit', async () => {
    const { seam, relay } = setup({}, { timeoutMs: 60_000 })
    const client = fakeClient()
    const connection = relay.connect(client)
    const asked = track(seam.ask({ questions }))
    await flush()
    const [requested] = client.framesOf('question/requested')
    expect(requested).toMatchObject({ deadline: seam.pending()[0]?.deadline })
    expect(typeof (requested as { deadline?: unknown }).deadline).toBe('number')
    connection.receive(respond(requested!.rpcId))
    expect(client.framesOf('receipt')).toEqual([])
    await flush()
    expect(asked.value).toEqual(canonicalAnswer)
    expect(client.framesOf('receipt')).toEqual([
      { type: 'receipt', rpcId: requested!.rpcId, accepted: true },
    ])
  })

  it('registers the wait before the frame goes out: a client answering inside send() wins', async () => {
    const { seam, relay } = setup()
    const other = fakeClient('other')
    relay.connect(other)
    const client = fakeClient()
    const connection = relay.connect(client)
    client.onFrame = (frame) => {
      if (frame.type === 'question/requested') connection.receive(respond(frame.rpcId))
    }
    const asked = track(seam.ask({ questions }))
    await flush()
    expect(asked.value).toEqual(canonicalAnswer)
    // The other client still hears both, in order.
    expect(other.frames.map((frame) => frame.type)).toEqual([
      'question/requested',
      'question/resolved',
    ])
  })

  it('replays every pending ask, same rpcId, to a client that connects or reconnects', async () => {
    const { seam, relay } = setup()
    void track(seam.ask({ questions }))
    void track(seam.ask({ questions: [questions[0]!] }))
    await flush()
    const ids = seam.pending().map((ask) => ask.askId)
    const first = fakeClient()
    const connection = relay.connect(first)
    expect(first.framesOf('question/requested').map((frame) => frame.rpcId)).toEqual(ids)
    connection.disconnect()
    expect(connection.closed).toBe(true)
    expect(relay.clientCount()).toBe(0)
    const again = fakeClient()
    relay.connect(again)
    expect(again.framesOf('question/requested').map((frame) => frame.rpcId)).toEqual(ids)
  })

  it('lets the first valid response win; later and duplicate ones get not-pending', async () => {
    const { seam, relay } = setup()
    const [a, b] = [fakeClient('a'), fakeClient('b')]
    const [ca, cb] = [relay.connect(a), relay.connect(b)]
    const asked = track(seam.ask({ questions }))
    await flush()
    const rpcId = a.framesOf('question/requested')[0]!.rpcId
    cb.receive(cancel(rpcId))
    ca.receive(respond(rpcId))
    cb.receive(cancel(rpcId))
    await flush()
    expect((asked.error as UserQuestionError).code).toBe('ASK_CANCELLED')
    expect(a.framesOf('receipt')).toEqual([
      { type: 'receipt', rpcId, accepted: false, reason: 'not-pending' },
    ])
    // A response while one is committed waits for the verdict: not-pending once the ask ended.
    expect(b.framesOf('receipt')).toEqual([
      { type: 'receipt', rpcId, accepted: true },
      { type: 'receipt', rpcId, accepted: false, reason: 'not-pending' },
    ])
    expect(a.framesOf('question/resolved')).toEqual([
      { type: 'question/resolved', rpcId, outcome: 'cancelled' },
    ])
  })

  it('answers an invalid answer with bad-response and keeps the ask pending', async () => {
    const { relay, client, connection, asked, rpcId } = await askedOfOneClient()
    connection.receive(respond(rpcId, { answers: [{ id: 'region', selected: ['mars-1'] }] }))
    connection.receive(JSON.stringify({ type: 'question/respond', rpcId, result: 'yes' }))
    connection.receive(
      JSON.stringify({
        type: 'question/respond',
        rpcId,
        result: { ok: false, error: { code: 'nope' } },
      }),
    )
    const receipts = client.framesOf('receipt')
    expect(receipts.map((receipt) => [receipt.accepted, receipt.reason])).toEqual([
      [false, 'bad-response'],
      [false, 'bad-response'],
      [false, 'bad-response'],
    ])
    expect(receipts[0]!.message).toContain('mars-1')
    expect(relay.pending().map((ask) => ask.rpcId)).toEqual([rpcId])
    await flush()
    expect(asked.settled).toBe(0)
    connection.receive(respond(rpcId))
    await flush()
    expect(asked.value).toEqual(canonicalAnswer)
  })

  it('turns a cancelled result into ASK_CANCELLED, keeping the discuss reason', async () => {
    const { seam, relay } = setup()
    const client = fakeClient()
    const connection = relay.connect(client)
    const dismissed = track(seam.ask({ questions }))
    await flush()
    connection.receive(cancel(client.framesOf('question/requested')[0]!.rpcId))
    const discussed = track(seam.ask({ questions }))
    await flush()
    connection.receive(cancel(client.framesOf('question/requested')[1]!.rpcId, 'discuss'))
    await flush()
    expect(dismissed.error).toMatchObject({
      code: 'ASK_CANCELLED',
      details: { reason: 'dismissed' },
    })
    expect(discussed.error).toMatchObject({ code: 'ASK_CANCELLED', details: { reason: 'discuss' } })
  })

  it('answers a cancel with a reason it does not know with bad-response, and keeps the ask pending', async () => {
    const { seam, client, connection, asked, rpcId } = await askedOfOneClient()
    connection.receive(cancel(rpcId, 'later'))
    await flush()
    expect(client.framesOf('receipt')).toEqual([
      {
        type: 'receipt',
        rpcId,
        accepted: false,
        reason: 'bad-response',
        message: 'a cancel\'s reason must be "dismissed" or "discuss", or left out',
      },
    ])
    expect(asked.settled).toBe(0)
    expect(seam.pending()).toHaveLength(1)
    connection.receive(cancel(rpcId, 'dismissed'))
    await flush()
    expect(asked.error).toMatchObject({ code: 'ASK_CANCELLED', details: { reason: 'dismissed' } })
  })

  it('tells every client timed-out when the seam deadline passes, even with no client connected at the time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const { seam, relay } = setup({}, { timeoutMs: 5_000 })
    const watcher = fakeClient()
    relay.connect(watcher)
    const asked = track(seam.ask({ questions }))
    await flush()
    const rpcId = watcher.framesOf('question/requested')[0]!.rpcId
    vi.advanceTimersByTime(5_000)
    await flush()
    expect((asked.error as UserQuestionError).code).toBe('ASK_TIMEOUT')
    expect(watcher.framesOf('question/resolved')).toEqual([
      { type: 'question/resolved', rpcId, outcome: 'timed-out' },
    ])
    expect(relay.pending()).toEqual([])

    watcher.frames.length = 0
    const unattended = track(seam.ask({ questions }))
    await flush()
    expect(relay.pending()).toHaveLength(1)
    vi.advanceTimersByTime(5_000)
    await flush()
    expect((unattended.error as UserQuestionError).code).toBe('ASK_TIMEOUT')
  })

  it('reports a caller abort and a seam close as aborted', async () => {
    const { seam, relay } = setup()
    const client = fakeClient()
    relay.connect(client)
    const controller = new AbortController()
    const aborted = track(seam.ask({ questions, signal: controller.signal }))
    const closed = track(seam.ask({ questions }))
    await flush()
    const [first, second] = client.framesOf('question/requested').map((frame) => frame.rpcId)
    controller.abort()
    await seam.close()
    await flush()
    expect((aborted.error as UserQuestionError).code).toBe('ASK_ABORTED')
    expect((closed.error as UserQuestionError).code).toBe('SEAM_CLOSED')
    expect(client.framesOf('question/resolved')).toEqual([
      { type: 'question/resolved', rpcId: first, outcome: 'aborted' },
      { type: 'question/resolved', rpcId: second, outcome: 'aborted' },
    ])
  })

  it('carries the asking agent as sessionId and lets authorize decide who sees and answers it', async () => {
    const { seam, relay, agent } = setup({
      authorize: (client, sessionId) => client.name === 'admin' || client.name === sessionId,
    })
    const [admin, alice, bob] = [fakeClient('admin'), fakeClient('alice'), fakeClient('bob')]
    relay.connect(admin)
    relay.connect(alice)
    const bobConnection = relay.connect(bob)
    const asked = track(seam.ask({ questions, agent: agent('alice') }))
    await flush()
    const rpcId = admin.framesOf('question/requested')[0]!.rpcId
    expect(alice.framesOf('question/requested')).toEqual([
      { type: 'question/requested', rpcId, sessionId: 'alice', questions },
    ])
    expect(bob.frames).toEqual([])
    bobConnection.receive(respond(rpcId))
    expect(bob.frames).toEqual([{ type: 'receipt', rpcId, accepted: false, reason: 'forbidden' }])
    await flush()
    expect(asked.settled).toBe(0)
    expect(relay.pending()).toHaveLength(1)
    // An ask without an agent has no session: authorize is asked about `undefined`.
    void track(seam.ask({ questions }))
    await flush()
    expect(alice.framesOf('question/requested')).toHaveLength(1)
    expect(admin.framesOf('question/requested')).toHaveLength(2)
  })

  it('counts an authorize that throws as a refusal', async () => {
    const { seam, relay } = setup({
      authorize: () => {
        throw new Error('directory down')
      },
    })
    const client = fakeClient()
    relay.connect(client)
    void track(seam.ask({ questions }))
    await flush()
    expect(client.frames).toEqual([])
  })

  it('answers bad frames with documented error frames and keeps the connection', async () => {
    const { relay } = setup()
    const client = fakeClient()
    const connection = relay.connect(client)
    connection.receive('{not json')
    connection.receive('[1,2]')
    connection.receive('{"type":42}')
    connection.receive('{"type":"question/ask","rpcId":"x"}')
    connection.receive('{"type":"question/respond"}')
    connection.receive(respond('no-such-ask'))
    expect(
      client.frames.map((frame) => (frame.type === 'error' ? frame.code : frame.type)),
    ).toEqual([
      'invalid-json',
      'invalid-frame',
      'invalid-frame',
      'unknown-type',
      'invalid-frame',
      'receipt',
    ])
    expect(client.frames[5]).toEqual({
      type: 'receipt',
      rpcId: 'no-such-ask',
      accepted: false,
      reason: 'not-pending',
    })
    expect(connection.closed).toBe(false)
  })

  it('throttles a burst: frames past the window limit are dropped with one rate-limited error', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const { seam, relay } = setup({ maxFramesPerWindow: 50, rateWindowMs: 1000 })
    const noisy = fakeClient('noisy')
    const calm = fakeClient('calm')
    const noisyConnection = relay.connect(noisy)
    const calmConnection = relay.connect(calm)
    const asked = track(seam.ask({ questions }))
    await flush()
    const rpcId = calm.framesOf('question/requested')[0]!.rpcId
    for (let i = 0; i < 10_000; i++) noisyConnection.receive(respond(`bogus-${i}`))
    expect(noisy.framesOf('receipt')).toHaveLength(50)
    expect(noisy.framesOf('error')).toEqual([expect.objectContaining({ code: 'rate-limited' })])
    calmConnection.receive(respond(rpcId))
    await flush()
    expect(asked.value).toEqual(canonicalAnswer)
    vi.advanceTimersByTime(1000)
    noisyConnection.receive(respond('after-the-pause'))
    expect(noisy.frames.at(-1)).toEqual({
      type: 'receipt',
      rpcId: 'after-the-pause',
      accepted: false,
      reason: 'not-pending',
    })
  })

  it('pauses a client whose backlog reaches the bound, and drops it once it reads nothing for the stall timeout', async () => {
    vi.useFakeTimers()
    try {
      const { seam, relay } = setup({ maxBufferedBytes: 1000, stallTimeoutMs: 200 })
      const stuck = fakeClient('stuck')
      const connection = relay.connect(stuck)
      void track(seam.ask({ questions }))
      await flush()
      expect(stuck.frames).toHaveLength(1)
      stuck.bufferedAmount = 1001
      void track(seam.ask({ questions }))
      await flush()
      // Paused, not dropped: the frame waits for the client to read.
      expect(stuck.frames).toHaveLength(1)
      expect(connection.closed).toBe(false)
      await vi.advanceTimersByTimeAsync(150)
      expect(connection.closed).toBe(false)
      await vi.advanceTimersByTimeAsync(100)
      expect(stuck.closeReason).toBe('congested')
      expect(connection.closed).toBe(true)
      expect(relay.clientCount()).toBe(0)
      void track(seam.ask({ questions }))
      await flush()
      expect(stuck.frames).toHaveLength(1)
      expect(relay.pending()).toHaveLength(3)
    } finally {
      vi.useRealTimers()
    }
  })

  it('a paused client that reads gets what it is owed and is never dropped', async () => {
    vi.useFakeTimers()
    try {
      const { seam, relay } = setup({ maxBufferedBytes: 1000, stallTimeoutMs: 200 })
      const slow = fakeClient('slow')
      const connection = relay.connect(slow)
      slow.bufferedAmount = 5000
      for (let i = 0; i < 3; i++) void track(seam.ask({ questions }))
      await flush()
      expect(slow.frames).toHaveLength(0)
      // It reads a little in every stall window: progress keeps it connected.
      for (const amount of [4000, 3000, 2000, 1500]) {
        await vi.advanceTimersByTimeAsync(150)
        slow.bufferedAmount = amount
      }
      await vi.advanceTimersByTimeAsync(150)
      expect(connection.closed).toBe(false)
      slow.bufferedAmount = 0
      await vi.advanceTimersByTimeAsync(20)
      expect(slow.framesOf('question/requested')).toHaveLength(3)
      expect(connection.closed).toBe(false)
    } finally {
      vi.useRealTimers()
    }
  })

  it('does not send a paused client the question of an ask that ended while it was owed', async () => {
    vi.useFakeTimers()
    try {
      const { seam, relay } = setup({ maxBufferedBytes: 1000, stallTimeoutMs: 10_000 })
      const fast = fakeClient('fast')
      const slow = fakeClient('slow')
      const fastConnection = relay.connect(fast)
      relay.connect(slow)
      slow.bufferedAmount = 5000
      const first = track(seam.ask({ questions }))
      void track(seam.ask({ questions }))
      await flush()
      const [ended, open] = fast.framesOf('question/requested').map((frame) => frame.rpcId)
      fastConnection.receive(respond(ended!))
      await flush()
      expect(first.settled).toBe(1)
      slow.bufferedAmount = 0
      await vi.advanceTimersByTimeAsync(20)
      expect(slow.framesOf('question/requested').map((frame) => frame.rpcId)).toEqual([open])
      expect(slow.framesOf('question/resolved').map((frame) => frame.rpcId)).toEqual([ended])
    } finally {
      vi.useRealTimers()
    }
  })

  it('serves the most recently active clients first and the rest on later turns, each in order', async () => {
    const { seam, relay } = setup({ framesPerTurn: 2 })
    const clients = ['a', 'b', 'c', 'd'].map((name) => fakeClient(name))
    const connections = clients.map((client) => relay.connect(client))
    const [a, b, c, d] = clients as [FakeClient, FakeClient, FakeClient, FakeClient]
    // The two newest connections hear at once (d, then c); the others on the next turn.
    const heard = new Promise((resolve) => (c.onFrame = resolve))
    void track(seam.ask({ questions }))
    await heard
    expect(clients.map((client) => client.frames.length)).toEqual([0, 0, 1, 1])
    await flush()
    expect(clients.map((client) => client.frames.length)).toEqual([1, 1, 1, 1])
    // Answering makes a client the most recently active one.
    const rpcId = a.framesOf('question/requested')[0]!.rpcId
    connections[0]!.receive(cancel(rpcId))
    await flush()
    expect(a.frames.map((frame) => frame.type)).toEqual([
      'question/requested',
      'receipt',
      'question/resolved',
    ])
    for (const client of [b, c, d]) {
      expect(client.frames.map((frame) => frame.type)).toEqual([
        'question/requested',
        'question/resolved',
      ])
    }
    delete c.onFrame
    const heardAgain = new Promise((resolve) => (d.onFrame = resolve))
    void track(seam.ask({ questions }))
    await heardAgain
    expect(clients.map((client) => client.framesOf('question/requested').length)).toEqual([
      2, 1, 1, 2,
    ])
    await flush()
    expect(clients.map((client) => client.framesOf('question/requested').length)).toEqual([
      2, 2, 2, 2,
    ])
  })

  it('treats a client whose send throws as gone', async () => {
    const { seam, relay } = setup()
    const broken = fakeClient()
    broken.send = () => {
      throw new Error('socket closed')
    }
    relay.connect(broken)
    void track(seam.ask({ questions }))
    await flush()
    expect(relay.clientCount()).toBe(0)
    expect(relay.pending()).toHaveLength(1)
  })

  it('settles what it holds, closes its clients and unregisters on dispose', async () => {
    const { seam, relay } = setup()
    const client = fakeClient()
    relay.connect(client)
    const asked = track(seam.ask({ questions }))
    await flush()
    const rpcId = client.framesOf('question/requested')[0]!.rpcId
    relay.dispose()
    relay.dispose()
    await flush()
    expect(asked.error).toMatchObject({ code: 'ASK_ABORTED' })
    expect(client.framesOf('question/resolved')).toEqual([
      { type: 'question/resolved', rpcId, outcome: 'aborted' },
    ])
    expect(client.closeReason).toBe('relay-disposed')
    expect(relay.pending()).toEqual([])
    const late = fakeClient()
    expect(relay.connect(late).closed).toBe(true)
    expect(late.closed).toBe(true)
    expect(() => seam.registerProvider({ ask: async () => ({ answers: [] }) })).not.toThrow()
  })

  it('hands its asks over, same askId, when the seam has a provider grace', async () => {
    const { seam, relay } = setup({}, { providerGraceMs: 60_000 })
    const asked = track(seam.ask({ questions }))
    await flush()
    const rpcId = relay.pending()[0]!.rpcId
    relay.dispose()
    const next = createRelay(seam)
    await flush()
    expect(next.pending().map((ask) => ask.rpcId)).toEqual([rpcId])
    const client = fakeClient()
    next.connect(client).receive(respond(rpcId))
    await flush()
    expect(asked.value).toEqual(canonicalAnswer)
  })
})
