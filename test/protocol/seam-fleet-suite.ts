import { getEventListeners } from 'node:events'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskStore,
  AskUserQuestionAnswer,
  AskOutcome,
  UserQuestions,
} from '../../src/protocol/index.js'
import { UserQuestionError } from '../../src/protocol/index.js'
import { HEARTBEAT_MS } from '../../src/machines/index.js'
import { isReplayedOutcome } from '../../src/vocabulary/index.js'
import type { StoreChange } from '../../src/protocol/internal.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import type { ControllableProvider } from '../support/controllable-provider.js'
import { runs } from '../support/runs.js'
import {
  closeSeam,
  comparedAfter,
  crashSeam,
  expectCallerAgrees,
  startCaller,
} from './property-callers.js'
import type { PropertyCaller } from './property-callers.js'
import { faultyStore } from './faulty-store.js'
import type { FaultKind, FaultyStore, MetFault } from './faulty-store.js'
import { advance, restartClock, runDue, useFakeClock } from './run-store.js'
import type { RunStore } from './run-store.js'

/**
 * Three seams share one store: seams 0 and 1 have providers (two
 * consoles), seam 2 only asks. Commands interleave asks (with and without
 * keys), answers and UI cancels from either console, caller aborts, time,
 * closes, crashes, re-asks by key and feeds that go down and come back. The
 * store decides every outcome; the reference model tracks what each caller
 * must end with and which answer came first, and the run checks that every
 * ask has one outcome that never changes, every live caller gets it, no
 * answer is lost, a seam whose feed came back has caught up, and nothing is
 * left.
 */

const questions = [
  { id: 'q', question: 'Which?', options: [{ label: 'A' }, { label: 'B' }, { label: 'C' }] },
]
const answerOf = (label: string): AskUserQuestionAnswer => ({
  answers: [{ id: 'q', selected: [label] }],
})
const KEYS = ['k0', 'k1', 'k2']

interface Model {
  callers: PropertyCaller[]
  /** The first answer given while the ask was pending in the store, by askId. */
  firstAnswer: Map<string, AskUserQuestionAnswer>
  /** Each settled ask's outcome as first seen: it may never change. */
  seen: Map<string, AskOutcome>
  closed: Set<number>
  crashed: Set<number>
  /** Seams whose feed is down: they hear of nothing until the next gap has them read the store. */
  deaf: Set<number>
  /** Seams whose feed came back but whose reread failed, and when: they read again a beat later. */
  owed: Map<number, number>
}

interface Real {
  store: AskStore
  /** The feed listeners each seam registered, by seam. */
  feeds: Set<(change: StoreChange) => void>[]
  /** Waits until the seams have done what they can without the clock moving. */
  settle: RunStore['settle']
  seams: UserQuestions[]
  providers: (ControllableProvider | undefined)[]
  /** The store the seams are given fails when armed (a run with faults); `store` is the one underneath. */
  faults: FaultyStore | undefined
  /** The seam that wrote each ask's admission, by askId. */
  owners: Map<string, number>
  /** Whether each seam's feed is down: the changes it would bring are lost. */
  down: boolean[]
}

/** The faults the seams met while `run` ran. */
async function faultsMet(real: Real, run: () => Promise<void>): Promise<MetFault[]> {
  const before = real.faults?.met.length ?? 0
  await run()
  return real.faults?.met.slice(before) ?? []
}

const live = (model: Model, seam: number) => !model.closed.has(seam) && !model.crashed.has(seam)

class Ask implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly seam: number,
    readonly key: string | undefined,
    readonly timeoutMs: number | undefined,
    /** How its admission fails, if it does (a run with faults). */
    readonly fault?: Exclude<FaultKind, 'read'>,
  ) {}
  check = (model: Model) => live(model, this.seam)
  async run(model: Model, real: Real) {
    if (this.fault !== undefined) real.faults?.arm(this.fault, 'admit')
    let record!: PropertyCaller
    const met = await faultsMet(real, async () => {
      record = startCaller(model.callers, this.seam, (signal) =>
        real.seams[this.seam]!.ask({
          questions,
          signal,
          ...(this.key === undefined ? {} : { key: this.key }),
          ...(this.timeoutMs === undefined ? {} : { timeoutMs: this.timeoutMs }),
        }),
      )
      record.key = this.key
      await real.settle()
    })
    // A caller attached to an ask under its key admits nothing: the fault waits for no one.
    real.faults?.disarmAdmission()
    const failed = met.find((fault) => fault.call === 'admit')
    if (failed !== undefined) {
      // DESIGN §6: an admission that failed ends its ask STORE_FAILED, a row it left settled so.
      record.askId = failed.askId
      record.expectCode = 'STORE_FAILED'
      return
    }
    const before = new Set(model.callers.map((each) => each.askId))
    const listed = real.seams[this.seam]!.pending().map((each) => each.askId)
    const admitted = listed.find((askId) => !before.has(askId))
    record.askId = admitted ?? (await keyedAskId(real, this.key))
    record.follows = admitted === undefined && record.askId !== undefined
  }
  toString = () =>
    `ask(seam ${this.seam}, ${this.key ?? 'no key'}, ${this.timeoutMs ?? '∞'}${this.fault === undefined ? '' : `, admission ${this.fault}s`})`
}

async function keyedAskId(real: Real, key: string | undefined): Promise<string | undefined> {
  if (key === undefined) return undefined
  const pending = await real.store.pending()
  return pending.find((each) => each.key === key)?.askId
}

/**
 * A console answers (or the human dismisses) one of the asks it shows; with
 * `gapAt`, that seam's feed has a gap just before, so its read of the store
 * is under way as the answer commits (on a store across a network, it can
 * land after the commit).
 */
class Respond implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly console: number,
    readonly pick: number,
    readonly how: 'A' | 'B' | 'cancel',
    readonly gapAt?: number,
  ) {}
  check = (model: Model) => live(model, this.console)
  async run(model: Model, real: Real) {
    const provider = real.providers[this.console]!
    const open = provider.calls.filter((call) => !call.settled && !call.request.signal.aborted)
    if (open.length === 0) return
    const call = open[this.pick % open.length]!
    const stored = await real.store.get(call.request.askId)
    if (this.gapAt !== undefined && live(model, this.gapAt)) feedGap(real, this.gapAt)
    const askId = call.request.askId
    const first = stored?.state === 'pending' && !model.firstAnswer.has(askId)
    const met = await faultsMet(real, async () => {
      if (this.how === 'cancel') call.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
      else {
        if (first) model.firstAnswer.set(askId, answerOf(this.how))
        call.resolve(answerOf(this.how))
      }
      await real.settle()
    })
    // An answer whose write never reached the store is tried again later: another may come first.
    if (first && met.some((fault) => fault.kind === 'fail' && fault.askId === askId)) {
      model.firstAnswer.delete(askId)
    }
  }
  toString = () =>
    `respond(console ${this.console}, #${this.pick}, ${this.how}${this.gapAt === undefined ? '' : `, gap at seam ${this.gapAt}`})`
}

/** The store's feed tells `seam` it may have missed changes: the seam reads the store again. */
/** Whether `fault` is a read of `seam`'s that failed. */
const isFailedRead = (fault: MetFault, seam: number) => fault.kind === 'read' && fault.seam === seam

function feedGap(real: Real, seam: number): void {
  for (const listener of real.feeds[seam]!) listener({ type: 'resync' })
}

/** The feed comes back (when it was down) and says it may have missed changes. */
class FeedGap implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seam: number) {}
  check = (model: Model) => live(model, this.seam)
  async run(model: Model, real: Real) {
    real.down[this.seam] = false
    const met = await faultsMet(real, async () => {
      feedGap(real, this.seam)
      await real.settle()
      // An ask it missed may be overdue already: the sweep armed for it runs at once.
      await runDue(real.settle)
    })
    if (!model.deaf.has(this.seam)) return
    if (met.some((fault) => isFailedRead(fault, this.seam))) model.owed.set(this.seam, Date.now())
    else {
      model.deaf.delete(this.seam)
      model.owed.delete(this.seam)
    }
  }
  toString = () => `feedGap(seam ${this.seam})`
}

/**
 * The seam's feed goes down (a dropped connection): every change it would
 * bring is lost until the next gap, after which the seam must have caught up
 * with what it missed (asks admitted, settled, purged).
 */
class FeedDown implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seam: number) {}
  check = (model: Model) => live(model, this.seam)
  async run(model: Model, real: Real) {
    real.down[this.seam] = true
    model.deaf.add(this.seam)
    model.owed.delete(this.seam)
    await real.settle()
  }
  toString = () => `feedDown(seam ${this.seam})`
}

/**
 * `store` as seam `seam` sees it: the feed listeners it registers are kept
 * in `listeners`, the changes its feed brings are lost while `down` says so,
 * and each ask it admits is noted in `owners` as its.
 */
function seamView(
  store: AskStore,
  seam: number,
  listeners: Set<(change: StoreChange) => void>,
  owners: Map<string, number>,
  down: boolean[],
): AskStore {
  const view = Object.create(store) as AskStore
  view.admit = (ask) => {
    owners.set(ask.askId, seam)
    return store.admit(ask)
  }
  view.watch = (listener) => {
    listeners.add(listener)
    const unwatch = store.watch((change) => {
      if (down[seam] !== true) listener(change)
    })
    return () => {
      listeners.delete(listener)
      unwatch()
    }
  }
  return view
}

/** The next settlement or vote a seam writes, or the next read it makes, fails as `kind` says. */
class Fault implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: FaultKind) {}
  check = () => true
  async run(_model: Model, real: Real) {
    real.faults?.arm(this.kind)
    await real.settle()
  }
  toString = () => `fault(${this.kind})`
}

class Abort implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = () => true
  async run(model: Model, real: Real) {
    const waiting = model.callers.filter(
      (each) => each.result === undefined && live(model, each.seam),
    )
    if (waiting.length === 0) return
    const caller = waiting[this.pick % waiting.length]!
    caller.controller.abort('stop')
    caller.expectCode ??= 'ASK_ABORTED'
    await real.settle()
  }
  toString = () => `abort(#${this.pick})`
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true
  async run(model: Model, real: Real) {
    const met = await faultsMet(real, () => advance(this.ms, real.settle))
    // A reread owed since a beat ago has run; one that met a failed read is owed again.
    for (const [seam, since] of model.owed) {
      if (met.some((fault) => isFailedRead(fault, seam))) model.owed.set(seam, Date.now())
      else if (Date.now() - since >= HEARTBEAT_MS) {
        model.owed.delete(seam)
        model.deaf.delete(seam)
      }
    }
  }
  toString = () => `advance(${this.ms})`
}

class Close implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seam: number) {}
  check = (model: Model) => live(model, this.seam)
  run = (model: Model, real: Real) => closeSeam(model, real, this.seam)
  toString = () => `close(seam ${this.seam})`
}

class Crash implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seam: number) {}
  check = (model: Model) => live(model, this.seam)
  run = (model: Model, real: Real) => crashSeam(model, real, this.seam)
  toString = () => `crash(seam ${this.seam})`
}

const RUNS = 150

async function compare(model: Model, real: Real) {
  expectEachShownOnce(real)
  const met = real.faults?.met ?? []
  // The asks an ending's write, or an answer's, met a fault on.
  const faulted = new Set(
    met.filter((fault) => ['settle', 'vote'].includes(fault.call)).map((fault) => fault.askId),
  )
  const admissionFailed = new Set(
    met.filter((fault) => fault.call === 'admit').map((fault) => fault.askId),
  )
  for (const caller of model.callers) {
    if (caller.askId === undefined || model.crashed.has(caller.seam)) continue
    let stored = await real.store.get(caller.askId)
    // The ask a caller followed ended without the human: its seam asked anew under the key
    // (DESIGN §10), and the key's newest ask is the caller's now. That ask may have ended
    // already, in the same command (its own deadline had passed, say).
    if (
      (caller.result === undefined || caller.follows === true) &&
      caller.expectCode === undefined &&
      caller.key !== undefined &&
      stored?.outcome !== undefined &&
      !isReplayedOutcome(stored.outcome)
    ) {
      const [newest] = await real.store.history({ key: caller.key, limit: 1 })
      caller.askId = newest?.askId ?? caller.askId
      stored = await real.store.get(caller.askId)
    }
    if (stored?.outcome !== undefined) {
      const first = model.seen.get(caller.askId)
      if (first === undefined) model.seen.set(caller.askId, stored.outcome)
      else expect(stored.outcome, `the outcome of ${caller.askId} changed`).toEqual(first)
      const answered = model.firstAnswer.get(caller.askId)
      // Nothing else happens in the command that gives it: the first answer wins.
      if (answered !== undefined) {
        expect(stored.outcome, 'the first answer is the outcome').toMatchObject({
          status: 'answered',
          answer: answered,
        })
      }
    }
    // An ending whose write failed and was not tried again (the seam closed meanwhile, say) is
    // STORE_FAILED for its caller (DESIGN §6: a local ending stands only once the store commits it).
    if (caller.result?.error?.code === 'STORE_FAILED' && faulted.has(caller.askId)) {
      caller.expectCode = 'STORE_FAILED'
    }
    // A seam whose feed is down has not heard the ask settle elsewhere: its caller is told after the gap.
    if (caller.result !== undefined || !model.deaf.has(caller.seam)) {
      expectCallerAgrees(caller, stored)
    }
    // A failed admission whose one write of its failure fails too leaves its row pending until its
    // seam's fleet writes that ending at its next beat (test/regression/failed-admission-left-pending).
    const leftover = faulted.has(caller.askId) && admissionFailed.has(caller.askId)
    if (stored?.state === 'pending' && !leftover) expectNoGhost(model, real, caller.askId)
    // What a caller got is final, and so is the ask it got it from: a later ask under the key is not its.
    if (caller.result !== undefined) caller.follows = false
    if (stored?.state === 'pending') {
      // Its own seam's console took it down with the ending that seam is still writing.
      const writing = faulted.has(caller.askId) ? real.owners.get(caller.askId) : undefined
      expectShownByEveryConsole(model, real, caller.askId, writing)
    } else if (stored !== undefined) expectListedNowhere(model, real, caller.askId)
  }
}

/**
 * A console is shown each ask once: its provider stays for the run, so an
 * ask shown again was brought back after it ended (a stale read of the store).
 */
function expectEachShownOnce(real: Real) {
  for (const [index, provider] of real.providers.entries()) {
    const shown = provider?.calls.map((call) => call.request.askId) ?? []
    expect(shown, `console ${index} shows each ask once`).toEqual([...new Set(shown)])
  }
}

/**
 * An ask its live seam admitted stays pending only while a caller waits on
 * it: one whose callers all have their outcome is a question shown to the
 * fleet that nobody waits for (a row its seam failed to end).
 */
function expectNoGhost(model: Model, real: Real, askId: string) {
  const owner = real.owners.get(askId)
  if (owner === undefined || !live(model, owner)) return
  const waiting = model.callers.some(
    (caller) =>
      caller.askId === askId && caller.result === undefined && !model.crashed.has(caller.seam),
  )
  expect(waiting, `${askId} is pending with no caller waiting`).toBe(true)
}

/** A settled ask is before no console, and no live seam lists it as pending. */
function expectListedNowhere(model: Model, real: Real, askId: string) {
  for (const [index, seam] of real.seams.entries()) {
    if (!live(model, index) || model.deaf.has(index)) continue
    const open = real.providers[index]?.calls.some(
      (call) => call.request.askId === askId && !call.settled && !call.request.signal.aborted,
    )
    expect(open === true, `console ${index} still shows the settled ${askId}`).toBe(false)
    const listed = seam.pending().map((each) => each.askId)
    expect(listed, `seam ${index} lists the settled ${askId}`).not.toContain(askId)
  }
}

/**
 * A pending ask is before every live console (DESIGN §10: one console serves
 * a fleet), or in its hands: an answer it gave whose commit has no verdict yet.
 */
function expectShownByEveryConsole(model: Model, real: Real, askId: string, except?: number) {
  for (const [index, provider] of real.providers.entries()) {
    if (provider === undefined || !live(model, index) || model.deaf.has(index)) continue
    if (index === except) continue
    const open = provider.calls.some(
      (call) =>
        call.request.askId === askId &&
        !call.request.signal.aborted &&
        (!call.settled || call.verdict === undefined),
    )
    expect(open, `console ${index} shows ${askId}`).toBe(true)
  }
}

const seamIndex = fc.constantFrom(0, 1, 2)
const ask = fc
  .tuple(seamIndex, fc.constantFrom(undefined, ...KEYS), fc.constantFrom(undefined, 400, 1_500))
  .map(([seam, key, timeoutMs]) => new Ask(seam, key, timeoutMs))
const respond = fc
  .tuple(
    fc.constantFrom(0, 1),
    fc.nat(10),
    fc.constantFrom('A', 'B', 'cancel') as fc.Arbitrary<'A' | 'B' | 'cancel'>,
    fc.option(seamIndex, { nil: undefined, freq: 3 }),
  )
  .map(([console, pick, how, gapAt]) => new Respond(console, pick, how, gapAt))
const fault = fc.constantFrom<FaultKind>('fail', 'lose', 'read').map((kind) => new Fault(kind))
const failingAsk = fc
  .tuple(
    seamIndex,
    fc.constantFrom(undefined, ...KEYS),
    fc.constantFrom<'fail' | 'lose'>('fail', 'lose'),
  )
  .map(([seam, key, how]) => new Ask(seam, key, undefined, how))

/** The commands of a run; with `faults`, some of the seams' writes and reads fail too. */
const commandsOf = (faults: boolean) =>
  // Asks and answers are drawn three times as often as the endings that stop them.
  fc.commands(
    [
      ask,
      ask,
      ask,
      respond,
      respond,
      respond,
      fc.nat(10).map((pick) => new Abort(pick)),
      fc.constantFrom(100, 500, 2_000, 16_000).map((ms) => new Advance(ms)),
      seamIndex.map((seam) => new FeedGap(seam)),
      seamIndex.map((seam) => new FeedDown(seam)),
      seamIndex.map((seam) => new Close(seam)),
      seamIndex.map((seam) => new Crash(seam)),
      ...(faults ? [fault, fault, failingAsk] : []),
    ],
    { maxCommands: 30 },
  )

/**
 * The runs made before the random ones: one for each ending, so that the
 * property is known to reach every ending however few runs it is given, and
 * then the runs that once broke the reference model.
 */
const examples: fc.AsyncCommand<Model, Real>[][] = [
  [new Ask(0, undefined, undefined), new Respond(0, 0, 'A')],
  [new Ask(1, 'k1', undefined), new Respond(1, 0, 'cancel')],
  [new Ask(2, undefined, undefined), new Abort(0)],
  [new Ask(0, undefined, 400), new Advance(2_000)],
  [new Ask(1, undefined, undefined), new Close(1)],
  // A follower whose own deadline passed asks anew when the holder gives up: its new ask times out.
  [new Ask(0, 'k0', undefined), new Ask(2, 'k0', 1_500), new Advance(2_000), new Abort(0)],
  // Two callers of one seam share an ask that ends NO_PROVIDER on the memory store (a durable
  // store's keyed ask waits for a human instead); a third caller asks anew under the key.
  [
    new Close(0),
    new Close(1),
    new Ask(2, 'k0', undefined),
    new Ask(2, 'k0', undefined),
    new Advance(16_000),
    new Advance(16_000),
    new Advance(16_000),
    new Advance(16_000),
    new Ask(2, 'k0', undefined),
  ],
]
/** How many of the examples, from the first, reach one ending each. */
const ENDINGS = 5

/** The fleet property on the store `openStore` opens afresh for every run. */
export function seamFleetSuite(
  storeName: string,
  openStore: () => Promise<RunStore>,
  wantedRuns = RUNS,
  { faults = false }: { faults?: boolean } = {},
): void {
  const commands = commandsOf(faults)
  describe(`seams sharing one store against a reference model (${storeName})`, () => {
    useFakeClock()

    it('one outcome per ask, the first committed; every live caller gets it; nothing is left', async () => {
      /** What the runs reached, so the property is known to exercise every ending. */
      const reached = new Map<string, number>()
      const numRuns = runs(wantedRuns)
      await fc.assert(
        fc.asyncProperty(commands, async (cmds) => {
          restartClock()
          const { store, settle, release, dispose } = await openStore()
          try {
            const providers = [
              createControllableProvider(),
              createControllableProvider(),
              undefined,
            ]
            const feeds = providers.map(() => new Set<(change: StoreChange) => void>())
            const failing = faults ? faultyStore(store) : undefined
            const owners = new Map<string, number>()
            const down = providers.map(() => false)
            const seams = feeds.map((listeners, index) =>
              createUserQuestions({
                store: seamView(failing?.viewOf(index) ?? store, index, listeners, owners, down),
                waitForProviderMs: 60_000,
              }),
            )
            providers.forEach((provider, index) => {
              if (provider !== undefined) seams[index]!.registerProvider(provider)
            })
            const model: Model = {
              callers: [],
              firstAnswer: new Map(),
              seen: new Map(),
              closed: new Set(),
              crashed: new Set(),
              deaf: new Set(),
              owed: new Map(),
            }
            const real: Real = {
              store,
              feeds,
              settle,
              seams,
              providers,
              faults: failing,
              owners,
              down,
            }
            await settle()
            await fc.asyncModelRun(
              () => ({ model, real }),
              [...cmds].map((command) => comparedAfter(command, compare)),
            )
            // Every feed still down comes back first: what its seam missed must be caught up.
            for (const index of model.deaf) {
              if (live(model, index)) await new FeedGap(index).run(model, real)
            }
            // A reread that failed is owed to the next beat.
            if (model.owed.size > 0) await new Advance(HEARTBEAT_MS).run(model, real)
            await compare(model, real)
            for (const index of seams.keys()) {
              if (live(model, index)) await closeSeam(model, real, index)
            }
            await settle()
            await compare(model, real)
            for (const caller of model.callers) {
              const ending = caller.result?.error?.code ?? (caller.result ? 'answered' : 'waiting')
              reached.set(ending, (reached.get(ending) ?? 0) + 1)
              if (!model.crashed.has(caller.seam)) expect(caller.result).toBeDefined()
              expect(getEventListeners(caller.controller.signal, 'abort')).toHaveLength(0)
            }
            release()
            expect(vi.getTimerCount()).toBe(0)
          } finally {
            await dispose()
          }
        }),
        { numRuns, examples: examples.map((cmds): [typeof cmds] => [cmds]) },
      )
      console.info(
        `fleet property endings (${storeName}): ${JSON.stringify(Object.fromEntries(reached))}`,
      )
      // The examples run first, within numRuns: a run capped below them (PROPERTY_RUNS) skips some.
      if (numRuns >= ENDINGS) {
        for (const ending of [
          'answered',
          'ASK_CANCELLED',
          'ASK_ABORTED',
          'ASK_TIMEOUT',
          'SEAM_CLOSED',
        ]) {
          expect(reached.get(ending), ending).toBeGreaterThan(0)
        }
      }
    })
  })
}
