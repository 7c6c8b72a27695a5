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
  /**
   * Who may answer (DESIGN §12): responder ids, or `role:NAME` for anyone
   * holding that role. Absent: anyone the UI admits. The harness sets it,
   * never the model.
   */
  answerers?: string[]
  /**
   * On one plan-review question: the ask is answered with the approve label
   * once this many distinct responders approved; a refusal from an admitted
   * responder ends it at once. @default 1
   */
  approvals?: number
}

/**
 * Who answered (DESIGN §12), as the surface that authenticated them says:
 * never what a client says of itself.
 */
export interface Responder {
  /** Stable id of the person: a console user, an OS user, an MCP client. */
  id: string
  name?: string
  roles?: string[]
  /** The surface they answered from. */
  via: 'terminal' | 'web' | 'http' | 'mcp' | (string & {})
}

/** A provider's answer: the answers, and who gave them. */
export interface ProviderAnswer extends AskUserQuestionAnswer {
  by?: Responder
}

/** Who may answer an ask and how many must approve: its request's `answerers` and `approvals`. */
export interface AskPolicy {
  answerers?: string[]
  /** At least 2 when present: one approval is the default. */
  approvals?: number
}

/** The approvals an ask holds so far, for a UI to show "1 of 2 approvals". */
export interface ApprovalCount {
  required: number
  /** Who approved so far, in the order they did. */
  given: Responder[]
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
  /** Who may answer (the request's `answerers`): a UI shows the ask only to responders {@link admits} lets in. */
  answerers?: string[]
  /** On an ask that needs several approvals: how many, and who gave them so far. */
  approvals?: ApprovalCount
}

/** What became of a provider's own settlement (see {@link ProviderRequest.settlement}). */
export type ProviderSettlement =
  | { status: 'accepted' }
  | { status: 'refused'; error: UserQuestionError }
  /**
   * The answer was an approval, kept as a vote, and the ask still waits for
   * more (DESIGN §12): it is presented again with the new count.
   */
  | { status: 'counted'; approvals: ApprovalCount }

/** A UI: anything that can put questions to a human and bring back answers. */
export interface UserQuestionProvider {
  ask(request: ProviderRequest): Promise<ProviderAnswer | AskUserQuestionAnswer>
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
