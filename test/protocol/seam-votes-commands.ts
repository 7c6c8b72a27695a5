import type fc from 'fast-check'
import { expect } from 'vitest'
import type { Responder } from '../../src/protocol/index.js'
import { isReplayedOutcome } from '../../src/vocabulary/index.js'
import { advance } from './run-store.js'
import { closeSeam, crashSeam, startCaller } from './property-callers.js'
import type { PropertyCaller } from './property-callers.js'
import {
  KEY_POLICY,
  PEOPLE,
  admitted,
  answer,
  count,
  live,
  modelOf,
  openCalls,
  plan,
} from './seam-votes-model.js'
import type { AskModel, How, Model, Policy, Real } from './seam-votes-model.js'

/*
 * The commands of seam-votes-suite.ts: asks and re-asks by key, people
 * answering at the consoles (admitted or not, once, twice, or two at once),
 * time, closes and crashes. What an answer must do is the model's
 * (seam-votes-model.ts).
 */

class Ask implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly seam: number,
    readonly key: string | undefined,
    readonly timeoutMs: number | undefined,
    readonly policy: Policy,
  ) {}
  check = (model: Model) => live(model, this.seam)
  async run(model: Model, real: Real) {
    // Found through pending(), not history(): a store whose record is wrong still runs.
    const before = new Set((await real.store.pending()).map((each) => each.askId))
    const holder = this.key === undefined ? undefined : await keyHolder(model, real, this.key)
    const record = startCaller(model.callers, this.seam, (signal) =>
      real.seams[this.seam]!.ask({
        questions: plan,
        signal,
        approvals: this.policy.approvals,
        ...(this.policy.answerers === undefined ? {} : { answerers: this.policy.answerers }),
        ...(this.key === undefined ? {} : { key: this.key }),
        ...(this.timeoutMs === undefined ? {} : { timeoutMs: this.timeoutMs }),
      }),
    )
    await real.settle()
    const admittedNow = (await real.store.pending()).filter(
      (each) => !before.has(each.askId) && !model.asks.has(each.askId),
    )
    expect(admittedNow.length, 'one ask admits at most one row').toBeLessThanOrEqual(1)
    if (admittedNow[0] !== undefined) {
      record.askId = admittedNow[0].askId
      const ask = await modelOf(model, real, record.askId)
      expect(ask.policy, 'the store keeps the policy asked for').toEqual(this.policy)
      count(model, 'admitted')
    } else if (this.key !== undefined) {
      record.askId = await keyHolder(model, real, this.key)
      expect(record.askId, 'a key not admitted again is held by an ask').toBeDefined()
      expect(record.askId, 'the re-ask resumes the ask holding its key').toBe(holder)
      await modelOf(model, real, record.askId!)
      count(model, model.crashed.size > 0 ? 'key resumed after a crash' : 'key resumed')
    }
  }
  toString = () =>
    `ask(seam ${this.seam}, ${this.key ?? 'no key'}, ${this.timeoutMs ?? '∞'}, ${JSON.stringify(this.policy)})`
}

/**
 * The ask that holds `key`: the one pending, or the one whose outcome is
 * replayed (DESIGN §10). Every keyed ask came from an `Ask`, so the model
 * knows them all.
 */
async function keyHolder(model: Model, real: Real, key: string): Promise<string | undefined> {
  const holders: string[] = []
  for (const ask of model.asks.values()) {
    if (ask.key !== key) continue
    const stored = await real.store.get(ask.askId)
    if (stored?.outcome === undefined || isReplayedOutcome(stored.outcome)) holders.push(ask.askId)
  }
  expect(holders.length, `at most one ask holds ${key}`).toBeLessThanOrEqual(1)
  return holders[0]
}

export const askCommand = (
  seam: number,
  key: string | undefined,
  timeoutMs: number | undefined,
  policy: Policy,
) => new Ask(seam, key, timeoutMs, key === undefined ? policy : KEY_POLICY[key]!)

/** A keyed ask again, from another seam than the one that asked it last. */
export class Reask implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly seam: number,
    readonly pick: number,
  ) {}
  check = (model: Model) =>
    live(model, this.seam) &&
    model.callers.some((caller) => caller.seam !== this.seam && keyOf(model, caller) !== undefined)
  async run(model: Model, real: Real) {
    const elsewhere = model.callers.filter(
      (caller) => caller.seam !== this.seam && keyOf(model, caller) !== undefined,
    )
    const key = keyOf(model, elsewhere[this.pick % elsewhere.length]!)!
    await new Ask(this.seam, key, undefined, KEY_POLICY[key]!).run(model, real)
  }
  toString = () => `reask(seam ${this.seam}, #${this.pick})`
}

const keyOf = (model: Model, caller: PropertyCaller) =>
  caller.askId === undefined ? undefined : model.asks.get(caller.askId)?.key

/** A seam may close or crash while another lives: a fleet of none presents nothing to vote on. */
const others = (model: Model, seam: number) =>
  [0, 1, 2].some((index) => index !== seam && live(model, index))

/** Chooses one of a console's open calls; `undefined` when it shows nothing. */
const chosen = (real: Real, console: number, pick: number) => {
  const open = openCalls(real.providers[console]!)
  return open.length === 0 ? undefined : open[pick % open.length]!
}

/** Someone the ask admits answers: approves, or vetoes with the other option or typed feedback. */
export class Answer implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly console: number,
    readonly pick: number,
    readonly person: number,
    readonly how: How,
  ) {}
  check = (model: Model) => live(model, this.console)
  async run(model: Model, real: Real) {
    const call = chosen(real, this.console, this.pick)
    if (call === undefined) return
    const ask = await modelOf(model, real, call.request.askId)
    // Those who have not approved yet come first, so that votes add up (ApproveTwice repeats).
    const people = PEOPLE.filter((each) => admitted(ask.policy, each)).sort(
      (a, b) => Number(ask.votes.includes(a.id)) - Number(ask.votes.includes(b.id)),
    )
    await answer(model, real, [
      { console: this.console, call, person: people[this.person % people.length], how: this.how },
    ])
  }
  toString = () =>
    `answer(console ${this.console}, #${this.pick}, person ${this.person}, ${this.how})`
}

/** Someone the ask does not admit answers (a person left out, or a provider naming nobody). */
export class Forbidden implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly console: number,
    readonly pick: number,
    readonly person: number,
    readonly how: How,
  ) {}
  check = (model: Model) => live(model, this.console)
  async run(model: Model, real: Real) {
    const call = chosen(real, this.console, this.pick)
    if (call === undefined) return
    const ask = await modelOf(model, real, call.request.askId)
    const outsiders = [...PEOPLE.filter((each) => !admitted(ask.policy, each)), undefined]
    const person = outsiders[this.person % outsiders.length]
    await answer(model, real, [{ console: this.console, call, person, how: this.how }])
  }
  toString = () =>
    `forbidden(console ${this.console}, #${this.pick}, person ${this.person}, ${this.how})`
}

/** An admitted person approves, then approves the same ask again where it is shown next. */
export class ApproveTwice implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly console: number,
    readonly pick: number,
    readonly person: number,
  ) {}
  check = (model: Model) => live(model, this.console)
  async run(model: Model, real: Real) {
    const call = chosen(real, this.console, this.pick)
    if (call === undefined) return
    const askId = call.request.askId
    const ask = await modelOf(model, real, askId)
    const people = PEOPLE.filter((each) => admitted(ask.policy, each))
    const person = people[this.person % people.length]!
    await answer(model, real, [{ console: this.console, call, person, how: 'approve' }])
    for (let console = 0; console < real.providers.length; console++) {
      const index = (this.console + console) % real.providers.length
      if (!live(model, index)) continue
      const again = openCalls(real.providers[index]!).find((each) => each.request.askId === askId)
      if (again === undefined) continue
      await answer(model, real, [{ console: index, call: again, person, how: 'approve' }])
      return
    }
  }
  toString = () => `approveTwice(console ${this.console}, #${this.pick}, person ${this.person})`
}

/**
 * Whether two answers given at once could settle the ask: a veto, or
 * approvals enough to reach its count. Such races once found a core bug (a
 * presentation whose vote write was in flight when another console's
 * settlement landed went back to presenting); {@link RACES_THAT_SETTLE}
 * keeps them in the runs, and the suite keeps the smallest example.
 */
function couldSettle(ask: AskModel, people: readonly Responder[], hows: readonly How[]): boolean {
  if (hows.some((how) => how !== 'approve')) return true
  const fresh = new Set(people.map((each) => each.id).filter((id) => !ask.votes.includes(id)))
  return ask.votes.length + fresh.size >= ask.policy.approvals
}

/** Whether answers at once that can settle the ask are among the commands. */
export const RACES_THAT_SETTLE = true

/** Two admitted people answer one ask at once on two consoles; the same person, when the picks meet. */
export class Together implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly console: number,
    readonly pick: number,
    readonly people: readonly [number, number],
    readonly hows: readonly [How, How],
  ) {}
  check = (model: Model) => live(model, this.console)
  async run(model: Model, real: Real) {
    const call = chosen(real, this.console, this.pick)
    if (call === undefined) return
    const askId = call.request.askId
    const ask = await modelOf(model, real, askId)
    const admittedPeople = PEOPLE.filter((each) => admitted(ask.policy, each))
    for (let step = 1; step < real.providers.length; step++) {
      const other = (this.console + step) % real.providers.length
      if (!live(model, other)) continue
      const elsewhere = openCalls(real.providers[other]!).find(
        (each) => each.request.askId === askId,
      )
      if (elsewhere === undefined) continue
      const [first, second] = this.people.map(
        (index) => admittedPeople[index % admittedPeople.length]!,
      )
      if (!RACES_THAT_SETTLE && couldSettle(ask, [first!, second!], this.hows)) return
      await answer(model, real, [
        { console: this.console, call, person: first, how: this.hows[0] },
        { console: other, call: elsewhere, person: second, how: this.hows[1] },
      ])
      return
    }
  }
  toString = () =>
    `together(console ${this.console}, #${this.pick}, people ${this.people.join('+')}, ${this.hows.join('+')})`
}

export class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true
  async run(_model: Model, real: Real) {
    await advance(this.ms, real.settle)
  }
  toString = () => `advance(${this.ms})`
}

export class Close implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seam: number) {}
  check = (model: Model) => live(model, this.seam) && others(model, this.seam)
  run = (model: Model, real: Real) => closeSeam(model, real, this.seam)
  toString = () => `close(seam ${this.seam})`
}

export class Crash implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seam: number) {}
  check = (model: Model) => live(model, this.seam) && others(model, this.seam)
  run = (model: Model, real: Real) => crashSeam(model, real, this.seam)
  toString = () => `crash(seam ${this.seam})`
}
