/*
 * What the presentationMachine tests share: a batch of questions and its
 * answer, the outcomes a presentation hears, and a presentation whose effects
 * are recorded and whose commits the test answers.
 */
import { expect } from 'vitest'
import { createActor } from 'xstate'
import { presentationMachine } from '../../src/machines/index.js'
import type { PresentationInput } from '../../src/machines/index.js'
import { timeoutOutcome } from '../../src/vocabulary/index.js'
import type { AskOutcome, AskRejection } from '../../src/vocabulary/index.js'

export const questions = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
  { id: 'note', question: 'Anything else?' },
]
export const answer = {
  answers: [
    { id: 'db', selected: ['SQLite'] },
    { id: 'note', selected: [], custom: 'ship it' },
  ],
}
export const answered: AskOutcome = { status: 'answered', answer }
export const cancelled: AskRejection = {
  status: 'rejected',
  error: { code: 'ASK_CANCELLED', message: 'dismissed' },
}
export const timeout = timeoutOutcome({ deadline: 60_000, startedAt: 0 })
/** What a provider whose answer was given but not committed hears of the timeout. */
export const tooLate: AskRejection = {
  status: 'rejected',
  error: {
    ...timeout.error,
    message: 'the deadline passed before the answer given could be committed',
  },
}

/** A presentation of ask `a1`, opened at 0 with its deadline at 60 s (`deadline: null`: none). */
export function presentationInput(
  extra: Omit<Partial<PresentationInput>, 'deadline'> & { deadline?: number | null } = {},
): PresentationInput {
  const { deadline = 60_000, ...rest } = extra
  return {
    askId: 'a1',
    questions,
    startedAt: 0,
    openedAt: 0,
    ...(deadline === null ? {} : { deadline }),
    ...rest,
  }
}

/** A presentation whose effects are recorded, and whose commits the test answers. */
export function presenting(extra: Parameters<typeof presentationInput>[0] = {}) {
  const effects = {
    called: 0,
    offered: [] as AskOutcome[],
    ended: [] as AskRejection[],
    told: [] as unknown[],
    offeredAt: [] as number[],
  }
  const machine = presentationMachine.provide({
    actions: {
      callProvider: () => {
        effects.called += 1
      },
      commitProposal: ({ context }) => {
        effects.offered.push(context.proposal!)
        effects.offeredAt.push(Date.now())
      },
      endPresentation: (_, { error }) => {
        effects.ended.push(error)
      },
      tellSettlement: (_, verdict) => {
        effects.told.push(verdict)
      },
    },
  })
  const actor = createActor(machine, { input: presentationInput(extra) }).start()
  return { actor, effects, machine }
}

/** A presentation whose provider answered, its first commit under way. */
export function writing(extra: Parameters<typeof presentationInput>[0] = {}) {
  const run = presenting(extra)
  run.actor.send({ type: 'provider.answered', answer })
  expect(run.actor.getSnapshot().value).toEqual({ committing: 'writing' })
  return run
}
