import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAgentRegistry, createUserQuestions } from '../../../src/protocol/index.js'
import type { Agent, UserQuestionError } from '../../../src/protocol/index.js'
import { createRelay } from '../../../src/providers/web/index.js'
import type { Relay, RelayConnection, ServerFrame } from '../../../src/providers/web/index.js'
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

/**
 * Interleaves connects, disconnects, asks from two sessions (and none),
 * valid / invalid / cancelling / late / duplicate / cross-session responses,
 * caller aborts and deadlines against a small model, and checks after every
 * step that each client received exactly the frames the model predicts, that
 * the relay's table holds exactly the pending asks, and that every caller
 * settled at most once, with the outcome the model says.
 */

/**
 * Lets the seam and the relay's fan-out finish: the relay writes two frames
 * per turn here (to exercise its chunking), so this waits until a whole
 * settle() passes with no client hearing anything more.
 */
async function drain(real: Real): Promise<void> {
  const heard = () => real.clients.map((client) => client?.frames.length ?? 0).join()
  for (let round = 0; round < 100; round++) {
    const before = heard()
    await flush()
    if (heard() === before) return
  }
  throw new Error('the relay kept sending for 100 rounds')
}

type Session = 'a' | 'b' | undefined
type Status = 'pending' | 'answered' | 'cancelled' | 'aborted' | 'timed-out'

const SLOTS = [
  { name: 'admin', sees: (_: Session) => true },
  { name: 'a', sees: (session: Session) => session === 'a' },
  { name: 'b', sees: (session: Session) => session === 'b' },
] as const

interface ModelAsk {
  session: Session
  deadline: number | undefined
  status: Status
}

interface Model {
  now: number
  connected: boolean[]
  asks: ModelAsk[]
  /** The frames each slot's current client must have received, in order. */
  expected: ServerFrame[][]
}

interface RealAsk {
  rpcId: string
  controller: AbortController
  result: ReturnType<typeof track>
}

interface Real {
  seam: ReturnType<typeof createUserQuestions>
  relay: Relay<FakeClient>
  agents: Record<'a' | 'b', Agent>
  clients: (FakeClient | undefined)[]
  connections: (RelayConnection | undefined)[]
  asks: RealAsk[]
}

const outcomeFrame = (rpcId: string, ask: ModelAsk): ServerFrame => {
  const outcome = ask.status as Exclude<Status, 'pending'>
  return ask.session === undefined
    ? { type: 'question/resolved', rpcId, outcome }
    : { type: 'question/resolved', rpcId, sessionId: ask.session, outcome }
}

const requestedFrame = (rpcId: string, ask: ModelAsk): ServerFrame =>
  ask.session === undefined
    ? { type: 'question/requested', rpcId, questions }
    : { type: 'question/requested', rpcId, sessionId: ask.session, questions }

/** Tells every connected client that may see it that an ask ended. */
function announceEnd(model: Model, real: Real, index: number): void {
  const ask = model.asks[index]!
  SLOTS.forEach((slot, position) => {
    if (model.connected[position] && slot.sees(ask.session)) {
      model.expected[position]!.push(outcomeFrame(real.asks[index]!.rpcId, ask))
    }
  })
}

function withoutDeadline(frame: unknown): unknown {
  if (typeof frame !== 'object' || frame === null || !('deadline' in frame)) return frame
  const { deadline: _deadline, ...rest } = frame as Record<string, unknown>
  return rest
}

function checkAll(model: Model, real: Real): void {
  SLOTS.forEach((_, position) => {
    // The model knows no deadlines; the frame's optional deadline is checked in relay.test.ts.
    if (model.connected[position])
      expect(real.clients[position]!.frames.map(withoutDeadline)).toEqual(model.expected[position])
  })
  expect(real.relay.pending().map((ask) => ask.rpcId)).toEqual(
    model.asks.flatMap((ask, index) => (ask.status === 'pending' ? [real.asks[index]!.rpcId] : [])),
  )
  model.asks.forEach((ask, index) => {
    const { result } = real.asks[index]!
    if (ask.status === 'pending') {
      expect(result.settled).toBe(0)
      return
    }
    expect(result.settled).toBe(1)
    if (ask.status === 'answered') {
      expect(result.value).toEqual(canonicalAnswer)
      return
    }
    const code = { cancelled: 'ASK_CANCELLED', aborted: 'ASK_ABORTED', 'timed-out': 'ASK_TIMEOUT' }[
      ask.status
    ]
    expect((result.error as UserQuestionError).code).toBe(code)
  })
}

type Command = fc.AsyncCommand<Model, Real>

class Connect implements Command {
  constructor(readonly slot: number) {}
  check = (model: Readonly<Model>) => !model.connected[this.slot]
  async run(model: Model, real: Real) {
    const client = fakeClient(SLOTS[this.slot]!.name)
    real.clients[this.slot] = client
    real.connections[this.slot] = real.relay.connect(client)
    model.connected[this.slot] = true
    model.expected[this.slot] = model.asks.flatMap((ask, index) =>
      ask.status === 'pending' && SLOTS[this.slot]!.sees(ask.session)
        ? [requestedFrame(real.asks[index]!.rpcId, ask)]
        : [],
    )
    await drain(real)
    checkAll(model, real)
  }
  toString = () => `connect(${SLOTS[this.slot]!.name})`
}

class Disconnect implements Command {
  constructor(readonly slot: number) {}
  check = (model: Readonly<Model>) => model.connected[this.slot] === true
  async run(model: Model, real: Real) {
    real.connections[this.slot]!.disconnect()
    expect(real.connections[this.slot]!.closed).toBe(true)
    model.connected[this.slot] = false
    await drain(real)
    checkAll(model, real)
  }
  toString = () => `disconnect(${SLOTS[this.slot]!.name})`
}

class Ask implements Command {
  constructor(
    readonly session: Session,
    readonly timeoutMs: number | undefined,
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const controller = new AbortController()
    const before = new Set(real.relay.pending().map((ask) => ask.rpcId))
    const result = track(
      real.seam.ask({
        questions,
        signal: controller.signal,
        ...(this.session === undefined ? {} : { agent: real.agents[this.session] }),
        ...(this.timeoutMs === undefined ? {} : { timeoutMs: this.timeoutMs }),
      }),
    )
    await flush()
    const added = real.relay.pending().filter((ask) => !before.has(ask.rpcId))
    expect(added).toHaveLength(1)
    const rpcId = added[0]!.rpcId
    real.asks.push({ rpcId, controller, result })
    const ask: ModelAsk = {
      session: this.session,
      deadline: this.timeoutMs === undefined ? undefined : model.now + this.timeoutMs,
      status: 'pending',
    }
    model.asks.push(ask)
    SLOTS.forEach((slot, position) => {
      if (model.connected[position] && slot.sees(ask.session)) {
        model.expected[position]!.push(requestedFrame(rpcId, ask))
      }
    })
    await drain(real)
    checkAll(model, real)
  }
  toString = () => `ask(${this.session ?? '-'}, ${this.timeoutMs ?? '∞'})`
}

class Respond implements Command {
  constructor(
    readonly slot: number,
    readonly pick: number,
    readonly kind: 'valid' | 'invalid' | 'cancel' | 'unknown',
  ) {}
  check = (model: Readonly<Model>) => model.connected[this.slot] === true && model.asks.length > 0
  async run(model: Model, real: Real) {
    const index = this.pick % model.asks.length
    const ask = model.asks[index]!
    const rpcId =
      this.kind === 'unknown' ? `${real.asks[index]!.rpcId}-nope` : real.asks[index]!.rpcId
    const frame =
      this.kind === 'cancel'
        ? cancel(rpcId)
        : respond(
            rpcId,
            this.kind === 'invalid' ? { answers: [{ id: 'region', selected: ['x'] }] } : undefined,
          )
    real.connections[this.slot]!.receive(frame)
    const expected = model.expected[this.slot]!
    if (this.kind === 'unknown' || ask.status !== 'pending') {
      expected.push({ type: 'receipt', rpcId, accepted: false, reason: 'not-pending' })
    } else if (!SLOTS[this.slot]!.sees(ask.session)) {
      expected.push({ type: 'receipt', rpcId, accepted: false, reason: 'forbidden' })
    } else if (this.kind === 'invalid') {
      expected.push({
        type: 'receipt',
        rpcId,
        accepted: false,
        reason: 'bad-response',
        message: expect.stringContaining('"x" is not one of its options') as string,
      })
    } else {
      // Accepted once the store committed it, then resolved for every client.
      ask.status = this.kind === 'valid' ? 'answered' : 'cancelled'
      expected.push({ type: 'receipt', rpcId, accepted: true })
      announceEnd(model, real, index)
    }
    await drain(real)
    checkAll(model, real)
  }
  toString = () => `respond(${SLOTS[this.slot]!.name}, #${this.pick}, ${this.kind})`
}

class Abort implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.asks.length > 0
  async run(model: Model, real: Real) {
    const index = this.pick % model.asks.length
    real.asks[index]!.controller.abort()
    const ask = model.asks[index]!
    if (ask.status === 'pending') {
      ask.status = 'aborted'
      announceEnd(model, real, index)
    }
    await drain(real)
    checkAll(model, real)
  }
  toString = () => `abort(#${this.pick})`
}

class Advance implements Command {
  constructor(readonly ms: number) {}
  check = () => true
  async run(model: Model, real: Real) {
    vi.advanceTimersByTime(this.ms)
    model.now += this.ms
    const due = model.asks
      .map((ask, index) => ({ ask, index }))
      .filter(
        ({ ask }) =>
          ask.status === 'pending' && ask.deadline !== undefined && ask.deadline <= model.now,
      )
      // Timers fire in deadline order, ties in the order they were armed.
      .sort((x, y) => x.ask.deadline! - y.ask.deadline! || x.index - y.index)
    for (const { ask, index } of due) {
      ask.status = 'timed-out'
      announceEnd(model, real, index)
    }
    await drain(real)
    checkAll(model, real)
  }
  toString = () => `advance(${this.ms})`
}

const slot = fc.integer({ min: 0, max: SLOTS.length - 1 })
const commands = [
  slot.map((position) => new Connect(position)),
  slot.map((position) => new Disconnect(position)),
  fc
    .tuple(fc.constantFrom<Session>('a', 'b', undefined), fc.constantFrom(undefined, 10, 50, 100))
    .map(([session, timeoutMs]) => new Ask(session, timeoutMs)),
  fc
    .tuple(
      slot,
      fc.nat(20),
      fc.constantFrom('valid', 'invalid', 'cancel', 'unknown') as fc.Arbitrary<
        'valid' | 'invalid' | 'cancel' | 'unknown'
      >,
    )
    .map(([position, pick, kind]) => new Respond(position, pick, kind)),
  fc.nat(20).map((pick) => new Abort(pick)),
  fc.constantFrom(1, 10, 45, 100).map((ms) => new Advance(ms)),
]

afterEach(() => {
  vi.useRealTimers()
})

describe('relay (property)', () => {
  it('settles every ask exactly once with the first valid response, replays pending asks and tells every client how each ended', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40 }), async (run) => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
        const registry = createAgentRegistry()
        const agents = { a: { id: 'a' }, b: { id: 'b' } }
        registry.enter(agents.a)
        registry.enter(agents.b)
        const seam = createUserQuestions({ agents: registry })
        const relay = createRelay<FakeClient>(seam, {
          framesPerTurn: 2,
          authorize: (client, session) =>
            SLOTS.find((item) => item.name === client.name)?.sees(session as Session) === true,
        })
        const model: Model = {
          now: 0,
          connected: SLOTS.map(() => false),
          asks: [],
          expected: SLOTS.map(() => []),
        }
        const real: Real = { seam, relay, agents, clients: [], connections: [], asks: [] }
        try {
          await fc.asyncModelRun(() => ({ model, real }), run)
          // Disposal settles what is left and tells the clients still connected.
          relay.dispose()
          model.asks.forEach((ask, index) => {
            if (ask.status !== 'pending') return
            ask.status = 'aborted'
            announceEnd(model, real, index)
          })
          await drain(real)
          checkAll(model, real)
          SLOTS.forEach((_, position) => {
            if (model.connected[position])
              expect(real.clients[position]!.closeReason).toBe('relay-disposed')
          })
        } finally {
          vi.useRealTimers()
        }
      }),
      { numRuns: 400 },
    )
  })
})
