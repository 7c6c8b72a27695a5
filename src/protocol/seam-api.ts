import type { InspectionEvent, Observer } from 'xstate'
import type { AskHistory, AskStore, HistoryQuery } from './store/types.js'
import type { SeamTelemetry } from './telemetry.js'
import type {
  AgentRegistry,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  PendingAsk,
  UserQuestionProvider,
} from '../vocabulary/index.js'

/** Receives XState inspection records from the seam and from every ask (e.g. Stately's inspector). */
export type InspectionObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void)

/** Options of `createUserQuestions`. */
export interface UserQuestionsOptions {
  /** Who may ask. Without it, any ask that names an `agent` is `CALLER_NOT_LIVE`. */
  agents?: AgentRegistry
  /**
   * Every ask must name its `agent`: one without is `CALLER_NOT_LIVE`, so a
   * subagent cannot reach the human by leaving `agent` out. @default false
   */
  requireAgent?: boolean
  /** Default deadline in milliseconds. @default undefined (wait for the human indefinitely) */
  timeoutMs?: number
  /** How long an ask waits for a provider when none is active anywhere. @default 0 (`NO_PROVIDER` at once) */
  waitForProviderMs?: number
  /** How long a disposed provider's asks wait, same `askId`, for the next one. @default 0 (abort at once) */
  providerGraceMs?: number
  /** Passed to every actor: the seam's provider slot and each ask. */
  inspect?: InspectionObserver
  /**
   * Where asks are admitted and settled (DESIGN §10). Seams sharing a store
   * share its asks. `close()` of the seam never closes it.
   * @default createMemoryStore() (one per seam: nothing outlives the process)
   */
  store?: AskStore
  /**
   * Told when each ask of this seam is admitted and settles, and when its
   * provider opens and closes a presentation (DESIGN §13): `openTelemetry()`
   * from `askseam/otel` makes spans and metrics of them. A hook that throws
   * is caught and reported once; the ask goes on.
   * @default undefined (nothing is observed, and no telemetry library is loaded)
   */
  telemetry?: SeamTelemetry
}

/** The seam between tools that ask and the UI that answers. */
export interface UserQuestions {
  /**
   * Makes `provider` the one active UI. Returns its disposer: idempotent and
   * stale-safe. Throws `TypeError` when `provider.ask` is not a function, or
   * cannot even be read (a throwing getter): that is a programming error, not
   * an ask's outcome; `DUPLICATE_PROVIDER` or `SEAM_CLOSED` otherwise.
   */
  registerProvider(provider: UserQuestionProvider): () => void
  /**
   * Asks a batch; resolves with the canonical answer or rejects with a
   * `UserQuestionError` (never anything else, never synchronously).
   */
  ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>
  /** This seam's view of the store's pending asks (its own and, with a provider, every other seam's), oldest first. */
  pending(): PendingAsk[]
  /**
   * The record of the asks the query matches in the seam's store, newest
   * first (DESIGN §12): what was asked, every event, and who answered. An
   * unknown key or id is an empty list. A malformed query rejects with a
   * `TypeError`. Still answers after `close()`: the record is the store's.
   */
  history(query: HistoryQuery): Promise<AskHistory[]>
  /** Rejects this seam's waiting callers with `SEAM_CLOSED`, then refuses new work. Leaves keyed asks pending in the store. */
  close(): Promise<void>
}
