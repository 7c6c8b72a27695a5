import { assertEvent } from 'xstate'
import { differenceOf, endingOf, isHandOver, isReplayedOutcome } from '../vocabulary/index.js'
import type { AskEnding } from '../vocabulary/index.js'
import { MAX_COMMIT_RETRIES } from './ask.context.js'
import type { Args, AskContext, Decided } from './ask.context.js'
import type { PresentationOutput } from './presentation.machine.js'

/*
 * The guards of askMachine (ask.machine.ts): every condition its transitions
 * take, over the data of ask.context.ts.
 */

const waitsForHuman = (context: AskContext) => context.durable && context.key !== undefined

/** The ask's guards: every condition its transitions take, each in one place. */
export const askGuards = {
  hasProviderHere: ({ context }: Args) => context.providerHere,
  hasProviderElsewhere: ({ context }: Args) => context.providerElsewhere,
  /**
   * The presentation came down because its provider went (a hand-over), not
   * for an ending of the ask; the next provider may already be here.
   */
  isWithdrawn: ({ context, event }: Args) => {
    const output = (event as unknown as { output: PresentationOutput }).output
    return (
      !context.providerHere || (output.verdict === 'takenDown' && isHandOver(output.ending.error))
    )
  },
  mayWaitForProvider: ({ context }: Args) => context.waitForProviderMs > 0,
  hasProviderGrace: ({ context }: Args) => context.providerGraceMs > 0,
  /** Another provider may still show the ask: one elsewhere now, one within the grace, or a human's later. */
  isTakenOverLater: ({ context }: Args) =>
    context.providerElsewhere || context.providerGraceMs > 0 || waitsForHuman(context),
  /** A keyed ask on a durable store is a question left for a human (DESIGN §10). */
  waitsForHuman: ({ context }: Args) => waitsForHuman(context),
  isFleetUnknown: ({ context }: Args) => !context.fleetKnown && !context.providerHere,
  /** A keyless ask nobody anywhere could take fails before anything is written (DESIGN §3). */
  isRefusedForNoProvider: ({ context }: Args) =>
    context.key === undefined &&
    context.waitForProviderMs === 0 &&
    context.fleetKnown &&
    !context.providerHere &&
    !context.providerElsewhere,
  /** A held ask followed from a store nothing outlives needs a UI now, as a new one would. */
  isFollowedWithNoProvider: ({ context }: Args) =>
    !context.durable &&
    context.waitForProviderMs === 0 &&
    !context.providerHere &&
    !context.providerElsewhere,
  isFleetProviderGone: ({ event }: Args) => {
    assertEvent(event, 'providers.elsewhere')
    return !event.active
  },
  isDeadlineReached: ({ event }: Args) => {
    assertEvent(event, 'ask.deadline')
    return event.final
  },
  hasNoProposal: ({ context }: Args) => context.proposal === undefined,
  /** The deadline is reached and no other local ending came first. */
  isFirstEndingByDeadline: ({ context, event }: Args) => {
    assertEvent(event, 'ask.deadline')
    return event.final && context.proposal === undefined
  },
  hasProposal: ({ context }: Args) => context.proposal !== undefined,
  /** The proposal's write failed for a reason that may pass, it has tries left, and it is not written once (`AskProposal.once`). */
  mayRetryCommit: ({ context, event }: Args) => {
    assertEvent(event, 'commit.failed')
    return (
      !event.lasting &&
      context.commitAttempts < MAX_COMMIT_RETRIES &&
      context.proposal?.once !== true
    )
  },
  isCommittedProposal: ({ context }: Args) => context.proposal?.commit === true,
  isAdmitted: ({ event }: Args) => {
    assertEvent(event, 'admission.done')
    return event.result.status === 'admitted'
  },
  holdsOtherAsk: ({ context, event }: Args) => {
    assertEvent(event, 'admission.done')
    const { result } = event
    return result.status === 'existing' && differenceOf(result.ask, context) !== undefined
  },
  isDecided: (_: unknown, decided: Decided) => decided.outcome !== undefined,
  /**
   * The followed ask ended in a way that says nothing about the human (its
   * own caller gave up, say): an ending this ask's callers did not cause, and
   * one the key gives up (DESIGN §10), so they ask anew.
   */
  isEndedWithoutHuman: ({ event }: Args) => {
    assertEvent(event, 'ask.settled')
    return !isReplayedOutcome(event.outcome)
  },
  endsIn: ({ context }: Args, params: { ending: AskEnding }) =>
    context.outcome !== undefined && endingOf(context.outcome) === params.ending,
}
