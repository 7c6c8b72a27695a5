import { errorData } from '../machines/index.js'
import {
  openPresentation,
  providerAnswered,
  providerFailed,
  safeProviderError,
  settledElsewhereError,
} from './presentation.js'
import type { Presentation } from './presentation.js'
import { attempt, storeFailed } from './seam-parts.js'
import { restoreError } from './store.js'
import type { AskRecord, AskStore, StoredOutcome } from './store.js'
import { validateAnswer } from '../vocabulary/index.js'
import type { UserQuestionProvider } from '../vocabulary/index.js'

/** What a seam lends the presenting of other seams' asks. */
export interface ForeignPresenterOptions {
  store: AskStore
  /** The seam's map of what its provider shows, by `askId` (its own asks' presentations too). */
  presentations: Map<string, Presentation>
  currentProvider(): UserQuestionProvider | undefined
}

/**
 * Presents asks another seam admitted (DESIGN §10: every seam with a provider
 * presents every pending ask of the store) and commits what the provider
 * answers straight to the store, where the first commit wins. The provider
 * hears "accepted" only when its own settlement is the one committed.
 * Returns `open(record)`: shows the ask, unless it is shown already or there
 * is no provider.
 */
export function createForeignPresenter(
  options: ForeignPresenterOptions,
): (record: AskRecord) => void {
  const { store, presentations, currentProvider } = options
  const open = (record: AskRecord): void => {
    const provider = currentProvider()
    if (provider === undefined || presentations.has(record.askId)) return
    const presentation = openPresentation(provider, {
      askId: record.askId,
      questions: record.questions,
      ...(record.deadline === undefined ? {} : { deadline: record.deadline }),
    })
    presentations.set(record.askId, presentation)
    presentation.answer
      .then(
        (raw): StoredOutcome => {
          providerAnswered(presentation)
          return { status: 'answered', answer: validateAnswer(record.questions, raw) }
        },
        (error: unknown): StoredOutcome => {
          return { status: 'rejected', error: errorData(providerFailed(presentation, error)) }
        },
      )
      // Only the answer's check throws here: its error, kept as data, is a BAD_ANSWER.
      .catch((error: unknown): StoredOutcome => ({
        status: 'rejected',
        error: { ...errorData(safeProviderError(error)), code: 'BAD_ANSWER' },
      }))
      .then((outcome) => commit(presentation, outcome))
      .catch(() => undefined)
  }

  const commit = async (presentation: Presentation, outcome: StoredOutcome) => {
    if (presentation.ended) return
    let won: boolean
    try {
      won =
        (await attempt(() => store.settle(presentation.askId, outcome, Date.now())))?.won === true
    } catch (error: unknown) {
      presentation.ended = true
      presentation.tell({ status: 'refused', error: storeFailed(error) })
      return
    } finally {
      if (presentations.get(presentation.askId) === presentation) {
        presentations.delete(presentation.askId)
      }
    }
    if (presentation.ended) return
    presentation.ended = true
    if (won && !(outcome.status === 'rejected' && outcome.error.code === 'BAD_ANSWER')) {
      presentation.tell({ status: 'accepted' })
    } else {
      presentation.tell({
        status: 'refused',
        error:
          won && outcome.status === 'rejected'
            ? restoreError(outcome.error)
            : settledElsewhereError(),
      })
    }
  }

  return open
}
