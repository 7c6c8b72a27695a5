import { askMachine, createCommitOffer, createPresenter } from '../machines/index.js'
import type { CommitResult } from '../machines/index.js'
import {
  abortPresentation,
  openPresentation,
  providerAnswered,
  providerFailed,
  safeProviderError,
} from './presentation.js'
import type { Presentation } from './presentation.js'
import { attempt } from './seam-parts.js'
import type { Entry } from './seam-parts.js'
import type { CallerSettling } from './settling.js'
import type { AskStore, SettleResult, StoredOutcome } from './store.js'
import { UserQuestionError } from '../vocabulary/index.js'
import type { AskUserQuestionItem, UserQuestionProvider } from '../vocabulary/index.js'

/*
 * The ask machine bound to one seam's live handles: the machine keeps data
 * only (DESIGN §6), so presenting to the provider, committing to the store and
 * taking a presentation down are supplied here, by the seam that runs it.
 */

/** What a seam lends the ask machine it runs. */
export interface BoundAskMachineOptions {
  store: AskStore
  /** The seam's asks that callers wait on, by `askId`. */
  entries: Map<string, Entry>
  /** The seam's map of what its provider shows, by `askId`. */
  presentations: Map<string, Presentation>
  currentProvider(): UserQuestionProvider | undefined
  /** The error a caller gets for a stored rejection (from the seam's {@link CallerSettling}). */
  errorFor: CallerSettling['errorFor']
}

/** Creates `askMachine` bound to a seam's handles; made once per seam, one actor of it per ask. */
export function createBoundAskMachine(options: BoundAskMachineOptions): typeof askMachine {
  const { store, entries, presentations, currentProvider, errorFor } = options

  const presentOwn = (input: { askId: string; questions: AskUserQuestionItem[] }) => {
    const entry = entries.get(input.askId)
    let presentation = presentations.get(input.askId)
    if (presentation === undefined || presentation.ended) {
      const provider = currentProvider()
      if (provider === undefined) {
        return Promise.reject(new UserQuestionError('no provider is active', 'PROVIDER_FAILED'))
      }
      presentation = openPresentation(provider, {
        askId: input.askId,
        questions: input.questions,
        ...(entry?.agent === undefined ? {} : { agent: entry.agent }),
        ...(entry?.deadline === undefined ? {} : { deadline: entry.deadline }),
      })
      presentations.set(input.askId, presentation)
    }
    return presentation.answer
  }

  const commit = async (input: {
    askId: string
    outcome: StoredOutcome
  }): Promise<CommitResult> => {
    let settled: SettleResult | undefined
    try {
      settled = await attempt(() => store.settle(input.askId, input.outcome, Date.now()))
      if (settled?.record.outcome === undefined) {
        throw new Error(`the store does not hold ask ${input.askId} as settled`)
      }
    } catch (error: unknown) {
      const entry = entries.get(input.askId)
      if (entry !== undefined) entry.storeCause = error
      throw error
    }
    return { outcome: settled.record.outcome, won: settled.won }
  }

  const machine = askMachine.provide({
    actors: {
      presentToProvider: createPresenter(presentOwn, {
        answered: (input) => {
          const presentation = presentations.get(input.askId)
          if (presentation !== undefined) providerAnswered(presentation)
        },
        failed: (input, error) => {
          const presentation = presentations.get(input.askId)
          return presentation === undefined
            ? safeProviderError(error)
            : providerFailed(presentation, error)
        },
      }),
    },
    actions: {
      offerCommit: createCommitOffer(commit),
      takeDownPresentation: ({ context }) => {
        const proposal = context.proposal
        const presentation = presentations.get(context.askId)
        const entry = entries.get(context.askId)
        if (presentation === undefined || entry === undefined || proposal === undefined) return
        if (proposal.byProvider || proposal.outcome.status !== 'rejected') return
        entry.localError = errorFor(entry, proposal.outcome)
        abortPresentation(presentation, entry.localError)
      },
      takeBackPresentation: ({ context }) => {
        const presentation = presentations.get(context.askId)
        if (presentation === undefined) return
        presentations.delete(context.askId)
        abortPresentation(
          presentation,
          new UserQuestionError(
            'the provider was disposed; the ask waits for the next one',
            'ASK_ABORTED',
            { details: { reason: 'provider-disposed', handOver: true } },
          ),
        )
      },
    },
  })

  return machine
}
