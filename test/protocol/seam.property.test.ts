import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import { runs } from '../support/runs.js'
import { settle as flush } from '../support/settle.js'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskUserQuestionAnswer,
  ProviderRequest,
  UserQuestions,
} from '../../src/protocol/index.js'

/**
 * fast-check interleaves asks, answers, UI cancels, stale answers, caller
 * aborts (own and shared signals), deadlines, waits, graces, disposals,
 * re-registrations and close() across many concurrent asks, and compares
 * the seam at every step with a small reference model.
 */

const WAIT_MS = 500
const GRACE_MS = 1_000
const questions = [{ id: 'q', question: 'Proceed?', options: [{ label: 'Yes' }, { label: 'No' }] }]
const yes: AskUserQuestionAnswer = { answers: [{ id: 'q', selected: ['Yes'] }] }

type Outcome = 'answered' | UserQuestionError['code']

interface ModelAsk {
  state: 'waiting-for-provider' | 'presenting' | 'settled'
  outcome?: Outcome
  deadline?: number
  waitUntil?: number
  graceUntil?: number
  shared: boolean
}

interface Model {
  time: number
  grace: boolean
  wait: boolean
  provider: boolean
  closed: boolean
  sharedAborted: boolean
  asks: ModelAsk[]
}

interface Presented {
  request: ProviderRequest
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

class Real {
  seam: UserQuestions
  shared = new AbortController()
  listeners = new Map<AbortSignal, number>()
  controllers: AbortController[] = []
  askIds: (string | undefined)[] = []
  settled: ({ outcome: Outcome; count: number } | undefined)[] = []
  /** Requests presented, by askId; the last is the current presentation. */
  presented = new Map<string, Presented[]>()
  dispose: (() => void) | undefined
  staleDisposers: (() => void)[] = []

  constructor(model: Model) {
    this.seam = createUserQuestions({
      waitForProviderMs: model.wait ? WAIT_MS : 0,
      providerGraceMs: model.grace ? GRACE_MS : 0,
    })
    this.count(this.shared.signal)
  }

  count(signal: AbortSignal) {
    this.listeners.set(signal, 0)
    const add = signal.addEventListener.bind(signal)
    const remove = signal.removeEventListener.bind(signal)
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      this.listeners.set(signal, this.listeners.get(signal)! + 1)
      add(...args)
    }) as typeof add
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      this.listeners.set(signal, this.listeners.get(signal)! - 1)
      remove(...args)
    }) as typeof remove
  }

  register(): unknown {
    try {
      const dispose = this.seam.registerProvider({
        ask: (request) =>
          new Promise((resolve, reject) => {
            const list = this.presented.get(request.askId) ?? []
            list.push({ request, resolve: resolve as (value: unknown) => void, reject })
            this.presented.set(request.askId, list)
          }),
      })
      if (this.dispose !== undefined) this.staleDisposers.push(this.dispose)
      this.dispose = dispose
      return undefined
    } catch (error: unknown) {
      return error
    }
  }
}

function settle(ask: ModelAsk, outcome: Outcome) {
  if (ask.state === 'settled') return
  ask.state = 'settled'
  ask.outcome = outcome
}

type Command = fc.AsyncCommand<Model, Real>

class Ask implements Command {
  constructor(
    readonly timeoutMs: number | undefined,
    readonly shared: boolean,
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const ask: ModelAsk = { state: 'presenting', shared: this.shared }
    if (this.timeoutMs !== undefined) ask.deadline = model.time + this.timeoutMs
    if (model.closed) settle(ask, 'SEAM_CLOSED')
    else if (this.shared && model.sharedAborted) settle(ask, 'ASK_ABORTED')
    else if (!model.provider && !model.wait) settle(ask, 'NO_PROVIDER')
    else if (!model.provider) {
      ask.state = 'waiting-for-provider'
      ask.waitUntil = model.time + WAIT_MS
    }
    model.asks.push(ask)

    const controller = new AbortController()
    real.count(controller.signal)
    real.controllers.push(controller)
    const index = real.settled.length
    real.settled.push(undefined)
    const before = new Set(real.seam.pending().map(({ askId }) => askId))
    real.seam
      .ask({
        questions,
        signal: this.shared ? real.shared.signal : controller.signal,
        ...(this.timeoutMs === undefined ? {} : { timeoutMs: this.timeoutMs }),
      })
      .then(
        () => 'answered' as const,
        (error: unknown) => (error as UserQuestionError).code,
      )
      .then((outcome) => {
        const previous = real.settled[index]
        real.settled[index] = { outcome, count: (previous?.count ?? 0) + 1 }
      })
    real.askIds.push(real.seam.pending().find(({ askId }) => !before.has(askId))?.askId)
    await flush()
  }
  toString = () => `ask(${this.timeoutMs ?? '∞'}${this.shared ? ', shared signal' : ''})`
}

/** Acts on the `pick`-th pending ask (modulo how many there are). */
abstract class OnPending implements Command {
  constructor(readonly pick: number) {}
  check = () => true
  target(model: Model): number | undefined {
    const pending = model.asks.flatMap((ask, index) => (ask.state === 'settled' ? [] : [index]))
    return pending.length === 0 ? undefined : pending[this.pick % pending.length]
  }
  abstract run(model: Model, real: Real): Promise<void>
}

class Respond extends OnPending {
  constructor(
    pick: number,
    readonly how: 'answer' | 'cancel' | 'bad' | 'fail' | 'stale',
  ) {
    super(pick)
  }
  async run(model: Model, real: Real) {
    const index = this.target(model)
    if (index === undefined) return
    const ask = model.asks[index]!
    const list = real.presented.get(real.askIds[index]!) ?? []
    const presentation =
      this.how === 'stale' ? list.at(-2) : ask.state === 'presenting' ? list.at(-1) : undefined
    if (presentation === undefined) return
    if (this.how === 'answer') {
      settle(ask, 'answered')
      presentation.resolve(yes)
    } else if (this.how === 'cancel') {
      settle(ask, 'ASK_CANCELLED')
      presentation.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
    } else if (this.how === 'bad') {
      settle(ask, 'BAD_ANSWER')
      presentation.resolve({ answers: [{ id: 'q', selected: ['Maybe'] }] })
    } else if (this.how === 'fail') {
      settle(ask, 'PROVIDER_FAILED')
      presentation.reject(new Error('renderer crashed'))
    } else {
      // A provider that was handed over answers late: ignored.
      presentation.resolve(yes)
    }
    await flush()
  }
  override toString = () => `${this.how}(#${this.pick})`
}

class Abort extends OnPending {
  async run(model: Model, real: Real) {
    const index = this.target(model)
    if (index === undefined) return
    const ask = model.asks[index]!
    if (ask.shared) {
      for (const other of model.asks) if (other.shared) settle(other, 'ASK_ABORTED')
      model.sharedAborted = true
      real.shared.abort('run cancelled')
    } else {
      settle(ask, 'ASK_ABORTED')
      real.controllers[index]!.abort('tool call cancelled')
    }
    await flush()
  }
  override toString = () => `abort(#${this.pick})`
}

class Advance implements Command {
  constructor(readonly ms: number) {}
  check = () => true
  async run(model: Model) {
    const until = model.time + this.ms
    for (const ask of model.asks) {
      if (ask.state === 'settled') continue
      const timers: [number | undefined, Outcome][] = [
        [ask.deadline, 'ASK_TIMEOUT'],
        [ask.waitUntil, 'NO_PROVIDER'],
        [ask.graceUntil, 'ASK_ABORTED'],
      ]
      const due = timers
        .filter(([at]) => at !== undefined && at <= until)
        .sort((a, b) => a[0]! - b[0]!)[0]
      if (due !== undefined) settle(ask, due[1])
    }
    model.time = until
    await vi.advanceTimersByTimeAsync(this.ms)
    await flush()
  }
  toString = () => `advance(${this.ms})`
}

class Dispose implements Command {
  constructor(readonly stale: boolean) {}
  check = () => true
  async run(model: Model, real: Real) {
    if (this.stale) {
      real.staleDisposers.at(-1)?.()
      return
    }
    if (model.provider) {
      model.provider = false
      for (const ask of model.asks) {
        if (ask.state !== 'presenting') continue
        if (model.grace) {
          ask.state = 'waiting-for-provider'
          ask.graceUntil = model.time + GRACE_MS
        } else settle(ask, 'ASK_ABORTED')
      }
    }
    real.dispose?.()
    await flush()
  }
  toString = () => (this.stale ? 'dispose(stale)' : 'dispose')
}

class Register implements Command {
  check = () => true
  async run(model: Model, real: Real) {
    const error = real.register()
    if (model.closed) expect((error as UserQuestionError).code).toBe('SEAM_CLOSED')
    else if (model.provider) expect((error as UserQuestionError).code).toBe('DUPLICATE_PROVIDER')
    else {
      expect(error).toBeUndefined()
      model.provider = true
      for (const ask of model.asks) {
        if (ask.state !== 'waiting-for-provider') continue
        ask.state = 'presenting'
        delete ask.waitUntil
        delete ask.graceUntil
      }
    }
    await flush()
  }
  toString = () => 'register'
}

class Close implements Command {
  check = () => true
  async run(model: Model, real: Real) {
    model.closed = true
    model.provider = false
    for (const ask of model.asks) settle(ask, 'SEAM_CLOSED')
    await real.seam.close()
    await flush()
  }
  toString = () => 'close'
}

function compare(model: Model, real: Real) {
  model.asks.forEach((ask, index) => {
    const settled = real.settled[index]
    if (ask.state === 'settled') {
      expect(settled, `ask #${index}`).toEqual({ outcome: ask.outcome, count: 1 })
    } else {
      expect(settled, `ask #${index} still pending`).toBeUndefined()
    }
  })
  const expected = model.asks.flatMap((ask, index) =>
    ask.state === 'settled' ? [] : [{ askId: real.askIds[index], state: ask.state }],
  )
  expect(real.seam.pending().map(({ askId, state }) => ({ askId, state }))).toEqual(expected)
  // One listener per caller signal while any ask watches it; none after.
  const sharedPending = model.asks.some((ask) => ask.shared && ask.state !== 'settled')
  expect(real.listeners.get(real.shared.signal)).toBe(sharedPending ? 1 : 0)
  model.asks.forEach((ask, index) => {
    if (ask.shared) return
    expect(real.listeners.get(real.controllers[index]!.signal), `listeners of ask #${index}`).toBe(
      ask.state === 'settled' ? 0 : 1,
    )
  })
  // Armed timers: one per pending deadline, wait or grace; none once all have settled.
  const armed = model.asks
    .filter((ask) => ask.state !== 'settled')
    .reduce(
      (sum, ask) =>
        sum +
        (ask.deadline !== undefined ? 1 : 0) +
        (ask.state === 'waiting-for-provider' && (ask.waitUntil ?? ask.graceUntil) !== undefined
          ? 1
          : 0),
      0,
    )
  expect(vi.getTimerCount()).toBe(armed)
}

const commands = fc.commands(
  [
    fc
      .tuple(fc.constantFrom(undefined, 333, 777, 2_333), fc.boolean())
      .map(([timeoutMs, shared]) => new Ask(timeoutMs, shared)),
    fc
      .tuple(
        fc.nat(20),
        fc.constantFrom('answer', 'cancel', 'bad', 'fail', 'stale') as fc.Arbitrary<Respond['how']>,
      )
      .map(([pick, how]) => new Respond(pick, how)),
    fc.nat(20).map((pick) => new Abort(pick)),
    fc.constantFrom(100, 300, 600, 1_200, 2_500).map((ms) => new Advance(ms)),
    fc.boolean().map((stale) => new Dispose(stale)),
    fc.constant(new Register()),
    fc.constant(new Close()),
  ],
  { maxCommands: 40 },
)

describe('§4 §6 the seam against a reference model', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('settles every ask exactly once with the first ending event, and leaves nothing behind', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        commands,
        async (grace, wait, startWithProvider, cmds) => {
          vi.setSystemTime(0)
          vi.clearAllTimers()
          const model: Model = {
            time: 0,
            grace,
            wait,
            provider: false,
            closed: false,
            sharedAborted: false,
            asks: [],
          }
          const real = new Real(model)
          if (startWithProvider) await new Register().run(model, real)
          await fc.asyncModelRun(
            () => ({ model, real }),
            [...cmds].map((command) => wrap(command)),
          )
          compare(model, real)
          await real.seam.close()
        },
      ),
      { numRuns: runs(300) },
    )
  })
})

/** Runs the command, then compares the seam with the model. */
function wrap(command: Command): Command {
  return {
    check: (model) => command.check(model),
    run: async (model, real) => {
      await command.run(model, real)
      compare(model, real)
    },
    toString: () => command.toString(),
  }
}
