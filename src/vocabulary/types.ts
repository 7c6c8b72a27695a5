import type { UserQuestionError } from './errors.js'

/** One choice of a question. `label` is both what the user sees and the value returned. */
export interface AskUserQuestionOption {
  label: string
  description?: string
}

/**
 * A presentation hint. `plan-review`: the question is a plan review, `detail`
 * carries the plan, and `approve` names the approving option by its label.
 */
export interface AskUserQuestionIntent {
  kind: 'plan-review'
  approve: string
}

/** One question of a batch, with a stable `id` the answer carries back. */
export interface AskUserQuestionItem {
  id: string
  question: string
  /** Shown with the question; never becomes an option. */
  detail?: string
  /** A short group heading. */
  header?: string
  /** Without options the question takes a free-text answer. */
  options?: AskUserQuestionOption[]
  /** @default false */
  multiSelect?: boolean
  intent?: AskUserQuestionIntent
}

/** An agent instance. Identity is the object itself, not only its `id`. */
export interface Agent {
  readonly id: string
}

/** What a tool asks: a batch of questions, and who asks. */
export interface AskUserQuestionRequest {
  questions: AskUserQuestionItem[]
  /** The exact live caller, when an agent asks. */
  agent?: Agent
  /** The owning tool call's abort signal. */
  signal?: AbortSignal
  /** This ask's deadline in milliseconds; overrides the seam default. `Infinity` waits indefinitely. */
  timeoutMs?: number
  /**
   * The caller's own id for this ask (e.g. the tool-call id). With a durable
   * store, an ask with a key it already holds attaches to that ask, or returns
   * its stored outcome, instead of asking the human again (DESIGN §10).
   */
  key?: string
}

/** The answer to one question. A skipped question is `{ id, selected: [] }`. */
export interface AskUserQuestionAnswerItem {
  id: string
  selected: string[]
  custom?: string
}

/** The answer to a batch: exactly one item per question, in question order. */
export interface AskUserQuestionAnswer {
  answers: AskUserQuestionAnswerItem[]
}

/** What a provider is handed for one ask. */
export interface ProviderRequest {
  /** Minted by the seam; stable across hand-over and replay. */
  askId: string
  questions: AskUserQuestionItem[]
  agent?: Agent
  /**
   * When the ask times out, in epoch milliseconds; absent when it waits
   * indefinitely. The seam enforces it; a provider may show it, or set a
   * transport's own timeout from it.
   */
  deadline?: number
  /**
   * Always present. Aborts when the ask ends for any reason other than this
   * provider's own settlement; its `reason` is the `UserQuestionError` that
   * ended the ask (or, on a hand-over, the one that took it from this provider).
   */
  signal: AbortSignal
  /**
   * Resolves once the store has committed this ask's outcome, after this
   * provider's own settlement: `accepted` when the answer it gave is the
   * ask's outcome, otherwise `refused` with the error that explains why (the
   * answer did not fit: `BAD_ANSWER`; another settlement was committed
   * first: `ASK_ABORTED`, `details.reason: 'settled-elsewhere'`). A relay
   * tells its client "accepted" only from this. Present on every request a
   * seam makes; never rejects.
   */
  settlement?: Promise<ProviderSettlement>
}

/** What became of a provider's own settlement (see {@link ProviderRequest.settlement}). */
export type ProviderSettlement =
  { status: 'accepted' } | { status: 'refused'; error: UserQuestionError }

/** A UI: anything that can put questions to a human and bring back answers. */
export interface UserQuestionProvider {
  ask(request: ProviderRequest): Promise<AskUserQuestionAnswer>
}

/** Where a pending ask stands. */
export type PendingAskState = 'waiting-for-provider' | 'presenting'

/** A snapshot of one pending ask, as `pending()` lists it. */
export interface PendingAsk {
  askId: string
  questions: AskUserQuestionItem[]
  agentId?: string
  state: PendingAskState
  /** Epoch milliseconds. */
  startedAt: number
  /** Epoch milliseconds; absent when the ask waits indefinitely. */
  deadline?: number
}

/** Who is live, and who owns whom. */
export interface AgentRegistry {
  /** The live instance for an id. */
  get(id: string): Agent | undefined
  /** The owner of a live agent; `undefined` for a runtime root. */
  ownerOf(agent: Agent): Agent | undefined
}
