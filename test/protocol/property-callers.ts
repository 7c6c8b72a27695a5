import type fc from 'fast-check'
import { expect } from 'vitest'
import { AskEndReasons, UserQuestionError } from '../../src/protocol/index.js'
import type { AskUserQuestionAnswer, UserQuestions } from '../../src/protocol/index.js'
import { dropSeamForTesting } from '../../src/protocol/seam.js'
import type { AskRecord } from '../../src/protocol/store/index.js'

/*
 * What the seam property suites (seam-fleet-suite.ts, seam-votes-suite.ts)
 * share: the callers they start on their seams, how what a caller got is
 * checked against the store's row, the check run after every command, and
 * how a seam of theirs is closed or crashed.
 */

/** One caller of a property run: the seam it asked, the ask it waits on, what it got. */
export interface PropertyCaller {
  seam: number
  askId: string | undefined
  /** The key it asked with, if any. */
  key?: string | undefined
  /** It attached to an ask another caller's seam admitted under its key. */
  follows?: boolean
  controller: AbortController
  result: { value?: AskUserQuestionAnswer; error?: UserQuestionError } | undefined
  /** Set when the model knows this caller's ending without the store (its own abort, a close). */
  expectCode: string | undefined
}

/**
 * Asks through `ask` on behalf of a new caller of `seam`, added to `callers`:
 * its signal is the caller's, and what its promise ends with is its result.
 */
export function startCaller(
  callers: PropertyCaller[],
  seam: number,
  ask: (signal: AbortSignal) => Promise<AskUserQuestionAnswer>,
): PropertyCaller {
  const caller: PropertyCaller = {
    seam,
    askId: undefined,
    controller: new AbortController(),
    result: undefined,
    expectCode: undefined,
  }
  callers.push(caller)
  ask(caller.controller.signal).then(
    (value) => (caller.result = { value }),
    (error: unknown) => (caller.result = { error: error as UserQuestionError }),
  )
  return caller
}

/**
 * What a caller got agrees with its ask's row: a caller still waits only
 * while the row is pending, and one that settled got the row's outcome (the
 * answer, or an error with its code and message), unless the model knows its
 * ending without the store. Only a caller that aborted is told of a caller's abort.
 */
export function expectCallerAgrees(caller: PropertyCaller, stored: AskRecord | undefined): void {
  if (caller.result === undefined) {
    if (caller.expectCode === undefined)
      expect(stored?.state, `the caller of ${caller.askId} is told`).not.toBe('settled')
    return
  }
  // DESIGN §10: a caller's abort ends the ask only for callers who aborted; another caller, in
  // this seam or another, is not given it (it keeps waiting, or asks anew under its key).
  if (caller.result.error?.details?.reason === AskEndReasons.CALLER_ABORTED) {
    expect(caller.expectCode, 'only a caller that aborted is told of an abort').toBe('ASK_ABORTED')
  }
  if (caller.expectCode !== undefined && caller.result.error?.code === caller.expectCode) return
  const outcome = stored?.outcome
  expect(outcome, `caller of ${caller.askId} settled, so the store has an outcome`).toBeDefined()
  if (outcome!.status === 'answered') expect(caller.result.value).toEqual(outcome!.answer)
  else {
    expect(caller.result.error).toBeInstanceOf(UserQuestionError)
    expect(caller.result.error?.code).toBe(outcome!.error.code)
    expect(caller.result.error?.message).toBe(outcome!.error.message)
  }
}

/** `command`, followed by the suite's `compare` of its model with the real seams and store. */
export function comparedAfter<Model extends object, Real>(
  command: fc.AsyncCommand<Model, Real>,
  compare: (model: Model, real: Real) => Promise<void>,
): fc.AsyncCommand<Model, Real> {
  return {
    check: (model) => command.check(model),
    run: async (model, real) => {
      await command.run(model, real)
      await compare(model, real)
    },
    toString: () => command.toString(),
  }
}

/** What a suite's model and real seams hold that closing or crashing a seam touches. */
interface SeamsModel {
  callers: PropertyCaller[]
  closed: Set<number>
  crashed: Set<number>
}
interface SeamsReal {
  seams: UserQuestions[]
  settle(): Promise<void>
}

/** Closes seam `seam`: its callers still waiting must get `SEAM_CLOSED`. */
export async function closeSeam(model: SeamsModel, real: SeamsReal, seam: number): Promise<void> {
  for (const caller of model.callers) {
    if (caller.seam === seam && caller.result === undefined) caller.expectCode ??= 'SEAM_CLOSED'
  }
  model.closed.add(seam)
  await real.seams[seam]!.close()
  await real.settle()
}

/** Drops seam `seam` as a killed process would: its callers hear nothing more. */
export async function crashSeam(model: SeamsModel, real: SeamsReal, seam: number): Promise<void> {
  model.crashed.add(seam)
  dropSeamForTesting(real.seams[seam]!)
  await real.settle()
}
