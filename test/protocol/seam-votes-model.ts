import { expect } from 'vitest'
import { UserQuestionError } from '../../src/protocol/index.js'
import type {
  AskHistory,
  AskOutcome,
  AskStore,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  ProviderSettlement,
  Responder,
  UserQuestions,
} from '../../src/protocol/index.js'
import type { ControllableProvider, ProviderCall } from '../support/controllable-provider.js'
import type { PropertyCaller } from './property-callers.js'
import type { RunStore } from './run-store.js'

/*
 * The reference model of seam-votes-suite.ts: plan reviews that count
 * approvals (DESIGN §12), answered by several people through three consoles
 * sharing one store, and what each answer must do (the commands that
 * drive them are in seam-votes-commands.ts).
 */

export const plan: AskUserQuestionItem[] = [
  {
    id: 'plan',
    question: 'Ship the migration?',
    detail: '1. back up\n2. migrate',
    options: [{ label: 'Approve' }, { label: 'Revise' }],
    intent: { kind: 'plan-review', approve: 'Approve' },
  },
]

export type How = 'approve' | 'revise' | 'feedback'
export const answerOf = (how: How): AskUserQuestionAnswer =>
  how === 'feedback'
    ? { answers: [{ id: 'plan', selected: [], custom: 'back up twice' }] }
    : { answers: [{ id: 'plan', selected: [how === 'approve' ? 'Approve' : 'Revise'] }] }

/** The people in front of the consoles: any of them may sit at any console. */
export const PEOPLE: readonly Responder[] = [
  { id: 'alice', name: 'Alice', roles: ['lead'], via: 'web' },
  { id: 'bob', roles: ['ops'], via: 'web' },
  { id: 'carol', roles: ['ops'], via: 'terminal' },
  { id: 'dave', via: 'web' },
  { id: 'erin', roles: ['ops', 'lead'], via: 'web' },
]

export interface Policy {
  approvals: 2 | 3
  answerers?: string[]
}
/** Every policy is reachable: each admits at least as many people as it needs. */
export const POLICIES: readonly Policy[] = [
  { approvals: 2 },
  { approvals: 3 },
  { approvals: 2, answerers: ['alice', 'bob', 'carol'] },
  { approvals: 3, answerers: ['role:ops'] },
  { approvals: 2, answerers: ['dave', 'role:lead'] },
]
/**
 * A key always comes with one policy: DESIGN §10 matches a re-ask by its
 * questions and says nothing of a re-ask that changes who may answer.
 */
export const KEY_POLICY: Readonly<Record<string, Policy>> = {
  k0: POLICIES[3]!,
  k1: POLICIES[0]!,
  k2: POLICIES[4]!,
}
export const KEYS = Object.keys(KEY_POLICY)

/** The model's own reading of `answerers`, independent of src/vocabulary/policy.ts. */
export function admitted(policy: Policy, person: Responder | undefined): boolean {
  if (person === undefined) return false // approvals are counted: a nameless answer never is
  if (policy.answerers === undefined) return true
  return policy.answerers.some((entry) =>
    entry.startsWith('role:') ? (person.roles ?? []).includes(entry.slice(5)) : entry === person.id,
  )
}

export interface AskModel {
  askId: string
  key: string | undefined
  policy: Policy
  /** Distinct admitted approvals counted while the ask was pending, in order. */
  votes: string[]
  /** Answers refused while it stayed pending, as `who:reason`, in order. */
  refusals: string[]
  /** The answer that must be its outcome, once the model knows it. */
  decided: { answer: AskUserQuestionAnswer; by: string[] } | undefined
  /** The outcome as first seen: it may never change. */
  seen: AskOutcome | undefined
}

export interface Model {
  asks: Map<string, AskModel>
  callers: PropertyCaller[]
  /** When each console last had an answer to an ask refused: `console:askId` → epoch ms. */
  refusedAt: Map<string, number>
  closed: Set<number>
  crashed: Set<number>
  /** What the run reached, so the suite knows it exercises every branch. */
  reached: Map<string, number>
}

export interface Real {
  store: AskStore
  /** Waits until the seams have done what they can without the clock moving. */
  settle: RunStore['settle']
  seams: UserQuestions[]
  providers: ControllableProvider[]
}

export const live = (model: Model, seam: number) =>
  !model.closed.has(seam) && !model.crashed.has(seam)

export const count = (model: Model, what: string) =>
  model.reached.set(what, (model.reached.get(what) ?? 0) + 1)

const policyOf = (stored: { approvals?: number; answerers?: string[] } | undefined): Policy => ({
  approvals: stored?.approvals as 2 | 3,
  ...(stored?.answerers === undefined ? {} : { answerers: [...stored.answerers] }),
})

/** The model of an ask, made from the store's row the first time the run meets it. */
export async function modelOf(model: Model, real: Real, askId: string): Promise<AskModel> {
  const known = model.asks.get(askId)
  if (known !== undefined) return known
  const stored = await real.store.get(askId)
  expect(stored, `the store holds ${askId}`).toBeDefined()
  const ask: AskModel = {
    askId,
    key: stored!.key,
    policy: policyOf(stored!.policy),
    votes: [],
    refusals: [],
    decided: undefined,
    seen: undefined,
  }
  model.asks.set(askId, ask)
  return ask
}
/** The calls a console shows now: not answered, not taken down. */
export const openCalls = (provider: ControllableProvider) =>
  provider.calls.filter((call) => !call.settled && !call.request.signal.aborted)

/** The verdict a provider must hear about one answer, by the model. */
type Expected =
  | { status: 'accepted' }
  | { status: 'counted'; given: string[] }
  | { status: 'refused'; reason?: string }

/** One person's answer to one presentation. */
export interface Given {
  console: number
  call: ProviderCall
  person: Responder | undefined
  how: How
}

const whoOf = (person: Responder | undefined) => person?.id ?? 'nobody'

/**
 * What one answer must do, from the ask's model while the store held it
 * `open` (pending, before its deadline), and the model after it: a forbidden
 * answer or a repeat approval is refused and changes nothing; an admitted
 * approval is a vote, the N-th settles the ask; any other admitted answer
 * settles it (a veto). Once the ask is decided, nothing later counts.
 */
function predict(ask: AskModel, open: boolean, { person, how }: Given): Expected {
  const who = whoOf(person)
  if (!open || ask.decided !== undefined) return { status: 'refused' }
  if (!admitted(ask.policy, person)) {
    ask.refusals.push(`${who}:forbidden`)
    return { status: 'refused', reason: 'forbidden' }
  }
  if (how !== 'approve') {
    ask.decided = { answer: answerOf(how), by: [who] }
    return { status: 'accepted' }
  }
  if (ask.votes.includes(who)) {
    ask.refusals.push(`${who}:already-voted`)
    return { status: 'refused', reason: 'already-voted' }
  }
  ask.votes.push(who)
  if (ask.votes.length < ask.policy.approvals) return { status: 'counted', given: [...ask.votes] }
  ask.decided = { answer: answerOf('approve'), by: [...ask.votes] }
  return { status: 'accepted' }
}

const fits = (told: ProviderSettlement | undefined, expected: Expected) =>
  told?.status === expected.status &&
  (expected.status !== 'refused' ||
    expected.reason === undefined ||
    (told.status === 'refused' && told.error.details?.reason === expected.reason))

/**
 * People answer presentations of one ask, all before the seams run: one
 * answer, or two at once on two consoles. The store orders answers given at
 * once; the model accepts either order, and takes the one the verdicts and
 * the recorded votes show.
 */
export async function answer(model: Model, real: Real, answers: readonly Given[]): Promise<void> {
  const askId = answers[0]!.call.request.askId
  const ask = await modelOf(model, real, askId)
  const stored = await real.store.get(askId)
  const open =
    stored?.state === 'pending' && (stored.deadline === undefined || Date.now() < stored.deadline)
  const told: (ProviderSettlement | undefined)[] = answers.map(() => undefined)
  answers.forEach(({ call }, index) => {
    void call.request.settlement?.then((settlement) => (told[index] = settlement))
  })
  for (const { call, person, how } of answers) {
    call.resolve(person === undefined ? answerOf(how) : { ...answerOf(how), by: person })
  }
  await real.settle()
  const [record] = await real.store.history({ askId })
  const events = record?.events ?? []
  const recorded = events.filter((event) => event.type === 'vote').map((event) => event.by?.id)
  const refusals = refusalsOf(events)
  const orders =
    answers.length === 1
      ? [[0]]
      : [
          [0, 1],
          [1, 0],
        ]
  const tried = orders.map((order) => {
    const after = structuredClone(ask)
    const expected: Expected[] = []
    for (const index of order) expected[index] = predict(after, open, answers[index]!)
    const fit = told.every((each, index) => fits(each, expected[index]!))
    // The record tells the orders apart where the verdicts do not: a veto and a
    // repeat approval at once leave the repeat refused either way, but recorded
    // as already-voted only when it came first.
    const agrees = isEqual(after.votes, recorded) && isEqual([...after.refusals].sort(), refusals)
    return { order, after, expected, fit: fit && agrees }
  })
  const context = answers
    .map(({ console, person, how }) => `${whoOf(person)} ${how} on console ${console}`)
    .join(' and ')
  const chosenOrder = tried.find((each) => each.fit)
  if (chosenOrder === undefined) {
    expect.fail(
      `${context}, to ${askId} (${open ? 'pending' : 'not pending'}, votes ${ask.votes.join(',') || 'none'}): ` +
        `told ${JSON.stringify(told.map(verdictOf))}, ` +
        `votes recorded ${JSON.stringify(recorded)}; ` +
        `the model expected ${tried.map((each) => `${JSON.stringify(each.expected)} with votes ${JSON.stringify(each.after.votes)}`).join(' or ')}`,
    )
  }
  const { after, expected } = chosenOrder!
  Object.assign(ask, after)
  expected.forEach((each, index) => {
    const { console, how } = answers[index]!
    const verdict = told[index]!
    count(model, each.status === 'refused' ? `refused ${each.reason}` : each.status)
    if (each.status === 'accepted') {
      count(model, how === 'approve' ? `approved by ${ask.policy.approvals}` : `veto (${how})`)
    }
    if (each.status === 'counted' && verdict.status === 'counted') {
      expect(verdict.approvals, context).toEqual({
        required: ask.policy.approvals,
        given: each.given.map((id) => PEOPLE.find((person) => person.id === id)),
      })
      if (answers.length === 1) {
        // Shown again at once on the voter's console, with the vote counted.
        const again = openCalls(real.providers[console]!).find(
          (call) => call.request.askId === askId,
        )
        expect(
          again?.request.approvals?.given.map((person) => person.id),
          context,
        ).toEqual(each.given)
      }
    }
    if (each.status === 'refused' && each.reason !== undefined) {
      expect(verdict.status === 'refused' && verdict.error, context).toBeInstanceOf(
        UserQuestionError,
      )
      expect(verdict.status === 'refused' && verdict.error.code, context).toBe('BAD_ANSWER')
      model.refusedAt.set(`${console}:${askId}`, Date.now())
    }
  })
  if (answers.length > 1) {
    count(model, ask.decided === undefined ? 'answered at once' : 'settled at once')
  }
}

/** The refusals an ask's record holds, as `who:reason`, sorted. */
export const refusalsOf = (events: AskHistory['events']) =>
  events
    .filter((event) => event.type === 'refused')
    .map((event) => `${event.by?.id ?? 'nobody'}:${String(event.detail?.reason)}`)
    .sort()

/** A verdict as the failure message shows it: its status, and a refusal's reason. */
const verdictOf = (told: ProviderSettlement | undefined) =>
  told?.status === 'refused' ? `refused ${String(told.error.details?.reason)}` : told?.status

const isEqual = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((each, index) => each === b[index])
