import type { Actor } from 'xstate'
import { askMachine, presentationMachine } from '../../src/machines/index.js'
import type { AskInput, PresentationEvent, ProviderVerdict } from '../../src/machines/index.js'
import type { AskErrorData, AskOutcome } from '../../src/vocabulary/index.js'

/** One yes-or-no question: what the bare-machine tests ask. */
export const questions = [
  { id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] },
]

/** The answer the bare-machine tests' provider gives. */
export const yes = { answers: [{ id: 'q', selected: ['Yes'] }] }

/** A bare ask `a1` of {@link questions}, started at 0 with a provider here, no wait and no grace. */
export function askInput(extra: Partial<AskInput> = {}): AskInput {
  return {
    askId: 'a1',
    questions,
    startedAt: 0,
    waitForProviderMs: 0,
    providerGraceMs: 0,
    providerHere: true,
    ...extra,
  }
}

/** What the effects of a {@link recordingAsk} were asked to do, in order. */
export interface RecordedEffects {
  /** Proposals the ask offered to its store. */
  offered: AskOutcome[]
  /** How many times a presentation called the provider. */
  shown: number
  /** Settlements a presentation offered to the store. */
  presentationOffers: AskOutcome[]
  /** Errors a presentation aborted its provider's signal with. */
  ended: AskErrorData[]
  /** Verdicts a presentation told its provider. */
  told: ProviderVerdict[]
}

/**
 * `askMachine` with every effect recorded and no store: what the store
 * commits (and, with `admission: 'by the test'`, what it made of the
 * admission) is an event the test sends, to the ask or to its presentation.
 */
export function recordingAsk(options: { admission?: 'at once' | 'by the test' } = {}) {
  const effects: RecordedEffects = {
    offered: [],
    shown: 0,
    presentationOffers: [],
    ended: [],
    told: [],
  }
  const presentation = presentationMachine.provide({
    actions: {
      callProvider: () => {
        effects.shown += 1
      },
      commitProposal: ({ context }) => {
        if (context.proposal !== undefined) effects.presentationOffers.push(context.proposal)
      },
      endPresentation: (_, { error }) => {
        effects.ended.push(error.error)
      },
      tellSettlement: (_, verdict) => {
        effects.told.push(verdict)
      },
    },
  })
  const machine = askMachine.provide({
    actors: { presentation },
    actions: {
      offerCommit: ({ context }) => {
        if (context.proposal !== undefined) effects.offered.push(context.proposal.outcome)
      },
      ...(options.admission === 'by the test' ? { admit: () => undefined } : {}),
    },
  })
  return { machine, effects }
}

/** Sends `event` to the presentation an ask runs as its child; fails the test if there is none. */
export function tellPresentation(
  actor: Actor<ReturnType<typeof recordingAsk>['machine']> | Actor<typeof askMachine>,
  event: PresentationEvent,
): void {
  const child = actor.getSnapshot().children.presentation
  if (child === undefined) throw new Error('the ask runs no presentation')
  child.send(event)
}
