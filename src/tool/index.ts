// The declarations name Node types (AbortSignal, streams, node:http); TypeScript 6+
// no longer loads @types/node unasked, so each entry point asks for it.
/// <reference types="node" preserve="true" />
/**
 * askseam/tool: the model-facing `ask_user_question` tool over a question
 * seam. This entry point is the only one that loads zod.
 *
 * @example
 * ```ts
 * import { createUserQuestions } from 'askseam'
 * import { createAskUserQuestionTool } from 'askseam/tool'
 *
 * const tool = createAskUserQuestionTool(createUserQuestions({ timeoutMs: 300_000 }))
 * // register { name, description, inputSchema } with your agent runtime, then:
 * const text = await tool.execute(modelArgs, { signal, agent })
 * // '{"answers":[{"id":"db","selected":["Postgres (Recommended)"]}]}'
 * ```
 */
import { UserQuestionError, toUserQuestionError } from '../protocol/index.js'
import type {
  Agent,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestions,
} from '../protocol/index.js'
import { isPlanReviewAsk, readPolicy } from '../vocabulary/index.js'
import { askUserQuestionInputSchema, parseAskUserQuestionArgs } from './schema.js'
import { formatToolError } from './results.js'

export { askUserQuestionArgsSchema, parseAskUserQuestionArgs } from './schema.js'
export type { AskUserQuestionArgs } from './schema.js'
export { formatToolError } from './results.js'
/**
 * @internal Shared with askseam's own layers above (they import it through this
 * index); not public API, left out of the declarations.
 */
export { askUserQuestionInputSchema, formatFieldPath } from './schema.js'
/**
 * @internal Shared with askseam's own layers above (they import it through this
 * index); not public API, left out of the declarations.
 */
export { discussNextStep, nextStepByCode, nextStepFor } from './results.js'

/** The tool's name, as the model calls it. */
export const askUserQuestionToolName = 'ask_user_question'

/** What the model reads to decide when and how to ask. */
export const askUserQuestionDescription = [
  'Ask the user one or more questions and wait for their answers.',
  'Use it rarely: only when you cannot proceed well without a decision only the user can make (a preference, a trade-off, missing information you cannot find yourself, approval of a risky or irreversible step). Do not ask what you can find out by reading, running or searching, and do not ask for confirmation of routine steps.',
  'Batch: put every question you have now into one call instead of asking one at a time.',
  'Offer options whenever you can (2 to 4 short labels, each with a one-line description). If you have a preference, put it first and end its label with " (Recommended)". The user can always type their own answer instead. Omit options for a free-text question. Set multi_select when several choices can apply.',
  'To have a plan approved, ask one question with the plan in `detail`, options such as "Approve" and "Revise", and intent { kind: "plan-review", approve: "Approve" }.',
  'The result is JSON {"answers":[{"id","selected":[labels],"custom"?}]} in question order: `selected` holds the chosen labels, `custom` the text the user typed, and `selected: []` without `custom` means the user skipped that question — do not read a skip as consent. On failure the result is a line starting with an error code followed by what to do next; follow it.',
].join('\n\n')

/** What `execute` is given besides the arguments. */
export interface AskUserQuestionExecuteOptions {
  /** The tool call's abort signal: aborting takes the questions down (`ASK_ABORTED`). */
  signal?: AbortSignal
  /** The exact live agent that calls the tool, checked by the seam's registry. */
  agent?: Agent
  /**
   * The call's own id (e.g. the framework's tool-call id), passed as the ask's
   * `key`: with a durable store a re-run of the same call gets the stored
   * answer instead of asking twice (DESIGN §10).
   */
  key?: string
}

/** Options of {@link createAskUserQuestionTool}. */
export interface AskUserQuestionToolOptions {
  /** Deadline of each ask in milliseconds. @default the seam's `timeoutMs` */
  timeoutMs?: number
  /**
   * Who may answer every ask of this tool (DESIGN §12): responder ids, or
   * `role:NAME`. The harness sets it; the model's arguments cannot (they
   * have no such field). @default anyone the UI admits
   */
  answerers?: string[]
  /**
   * How many distinct responders must approve a plan review (DESIGN §12).
   * It applies to the asks it can apply to, one plan-review question; the
   * tool's other asks are asked without it. @default 1
   */
  approvals?: number
}

// A plan-review ask, so `readPolicy` reads `approvals` as it will on a real one.
const planReviewShape: AskUserQuestionItem[] = [
  { id: 'plan', question: 'plan', intent: { kind: 'plan-review', approve: 'approve' } },
]

/**
 * Checks the harness's policy once, when the tool is made: a mistake there is
 * the harness's, not the model's, so it throws `INVALID_REQUEST` naming the
 * field instead of reaching the model on every call.
 * @internal Shared with the framework adapters; not public API.
 */
export function checkPolicy(options: AskUserQuestionToolOptions): void {
  try {
    readPolicy(options.answerers, options.approvals, planReviewShape)
  } catch (error: unknown) {
    const failure = toUserQuestionError(error)
    throw new UserQuestionError(`createAskUserQuestionTool: ${failure.message}`, failure.code, {
      cause: error,
      ...(failure.details === undefined ? {} : { details: failure.details }),
    })
  }
}

/** What of the harness's policy goes on an ask of `questions`: `approvals` only where it applies. */
function policyFor(
  options: AskUserQuestionToolOptions,
  questions: readonly AskUserQuestionItem[],
): { answerers?: string[]; approvals?: number } {
  return {
    ...(options.answerers === undefined ? {} : { answerers: [...options.answerers] }),
    ...(options.approvals === undefined || !isPlanReviewAsk(questions)
      ? {}
      : { approvals: options.approvals }),
  }
}

/** A tool result in the shape of MCP's `CallToolResult`, for runtimes that want one. */
export interface AskUserQuestionToolResult {
  content: [{ type: 'text'; text: string }]
  isError: boolean
  structuredContent:
    | AskUserQuestionAnswer
    | { error: { code: string; message: string; details?: Readonly<Record<string, unknown>> } }
}

/** The `ask_user_question` tool: a name, a description, a JSON Schema and `execute`. */
export interface AskUserQuestionTool {
  readonly name: typeof askUserQuestionToolName
  readonly description: string
  /** JSON Schema (draft 2020-12) of the snake_case arguments, produced from the zod schema. */
  readonly inputSchema: Record<string, unknown>
  /**
   * Asks and resolves with a string, never rejects: the compact JSON of the
   * answers, or `CODE: what happened. What to do next.`
   */
  execute(args: unknown, options?: AskUserQuestionExecuteOptions | null): Promise<string>
  /** As {@link AskUserQuestionTool.execute}, with `isError` and the structured value beside the text. */
  executeForResult(
    args: unknown,
    options?: AskUserQuestionExecuteOptions | null,
  ): Promise<AskUserQuestionToolResult>
}

// Not a question: it fails the seam's shape check, so the seam reports abort
// and caller errors first, in DESIGN §3 order, and never reaches a provider.
const probeQuestions = [null] as unknown as AskUserQuestionItem[]

/** An ask's result; a refusal keeps the questions asked, for the sentence that tells of it. */
type Outcome =
  | { ok: true; answer: AskUserQuestionAnswer }
  | { ok: false; error: UserQuestionError; questions?: readonly AskUserQuestionItem[] }

function unreadable(field: string, cause: unknown): UserQuestionError {
  return new UserQuestionError(`${field} could not be read`, 'INVALID_REQUEST', {
    cause,
    details: { field },
  })
}

/**
 * The model's arguments as plain JSON data, read once. Arguments reach a tool
 * as JSON; anything else (a getter that throws, a Proxy, a cycle, a BigInt)
 * is refused here, and a getter cannot answer differently on a second read.
 * A hole in an array becomes `null`, which the schema then names.
 */
function snapshotArguments(
  args: unknown,
): { ok: true; value: unknown } | { ok: false; error: UserQuestionError } {
  if (typeof args !== 'object' || args === null) return { ok: true, value: args }
  try {
    const text = JSON.stringify(args) as string | undefined
    return { ok: true, value: text === undefined ? undefined : (JSON.parse(text) as unknown) }
  } catch (error: unknown) {
    return {
      ok: false,
      error: new UserQuestionError(
        'the arguments could not be read as JSON data (send plain JSON: objects, arrays, strings, booleans)',
        'INVALID_REQUEST',
        { cause: error, details: { field: 'arguments' } },
      ),
    }
  }
}

/** `signal`, `agent` and `key`, each read once; `null` or a non-object means none given. */
function readExecuteOptions(
  options: unknown,
):
  | { ok: true; signal?: AbortSignal; agent?: Agent; key?: string }
  | { ok: false; error: UserQuestionError } {
  if (typeof options !== 'object' || options === null) return { ok: true }
  const read: { signal?: AbortSignal; agent?: Agent; key?: string } = {}
  for (const key of ['signal', 'agent', 'key'] as const) {
    let value: unknown
    try {
      value = Reflect.get(options, key) as unknown
    } catch (error: unknown) {
      return { ok: false, error: unreadable(`options.${key}`, error) }
    }
    if (value !== undefined) (read as Record<string, unknown>)[key] = value
  }
  if (read.signal !== undefined) {
    // The seam reads `aborted` first of all; one that throws is this call's own bad field.
    try {
      void read.signal.aborted
    } catch (error: unknown) {
      return { ok: false, error: unreadable('options.signal.aborted', error) }
    }
  }
  return { ok: true, ...read }
}

/** Whether the seam refused the call's signal or agent (not the probe's questions). */
function isAboutOptions(error: UserQuestionError): boolean {
  const field = error.details?.field
  return typeof field === 'string' && (field === 'agent' || field.startsWith('signal'))
}

/** Whether the signal says it aborted; a signal that cannot be read says so through the seam. */
function saysAborted(signal: AbortSignal | undefined): boolean {
  try {
    return signal?.aborted === true
  } catch {
    return true
  }
}

/** The coded sentence, and a last plain one should even formatting an error fail. */
function sentenceFor(error: UserQuestionError, questions?: readonly AskUserQuestionItem[]): string {
  try {
    return formatToolError(error, questions)
  } catch {
    return formatToolError(
      new UserQuestionError('the question could not be asked', 'PROVIDER_FAILED'),
    )
  }
}

/**
 * Creates the model-facing `ask_user_question` tool over a seam. Arguments
 * are parsed with zod (snake_case, `multi_select`); a bad one becomes
 * `INVALID_REQUEST` naming the field, e.g. `questions[0].options[1].label`.
 * `execute` never rejects, whatever it is handed: arguments or options that
 * cannot be read are coded results too. Who may answer (`answerers`) and how
 * many must approve (`approvals`) are the harness's to set, in `options`;
 * the model's arguments have no such fields, and one that names them is
 * `INVALID_REQUEST`. A policy the seam would refuse throws here, at once.
 *
 * @example
 * ```ts
 * const tool = createAskUserQuestionTool(seam)
 * await tool.execute({ questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }] }] })
 * ```
 */
export function createAskUserQuestionTool(
  seam: UserQuestions,
  options: AskUserQuestionToolOptions = {},
): AskUserQuestionTool {
  checkPolicy(options)
  const inputSchema = askUserQuestionInputSchema()

  async function askOnce(args: unknown, executeOptions: unknown): Promise<Outcome> {
    const given = readExecuteOptions(executeOptions)
    if (!given.ok) return given
    const { signal, agent, key } = given
    const snapshot = snapshotArguments(args)
    const parsed = snapshot.ok ? parseAskUserQuestionArgs(snapshot.value) : snapshot
    try {
      if (!parsed.ok) {
        // A malformed call still gets the abort and caller verdicts first.
        if (parsed.error.code !== 'EMPTY_QUESTIONS' || saysAborted(signal)) {
          await seam.ask({
            questions: probeQuestions,
            ...(signal === undefined ? {} : { signal }),
            ...(agent === undefined ? {} : { agent }),
          })
        }
        return { ok: false, error: parsed.error }
      }
      const answer = await seam.ask({
        questions: parsed.questions,
        ...(signal === undefined ? {} : { signal }),
        ...(agent === undefined ? {} : { agent }),
        ...(key === undefined ? {} : { key }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...policyFor(options, parsed.questions),
      })
      return { ok: true, answer }
    } catch (caught: unknown) {
      const error = toUserQuestionError(caught)
      if (!parsed.ok && error.code === 'INVALID_REQUEST' && !isAboutOptions(error)) {
        return { ok: false, error: parsed.error }
      }
      return parsed.ok ? { ok: false, error, questions: parsed.questions } : { ok: false, error }
    }
  }

  async function ask(args: unknown, executeOptions: unknown): Promise<Outcome> {
    try {
      return await askOnce(args, executeOptions)
    } catch (caught: unknown) {
      // A seam whose ask throws synchronously, or anything else unforeseen.
      return { ok: false, error: toUserQuestionError(caught) }
    }
  }

  return {
    name: askUserQuestionToolName,
    description: askUserQuestionDescription,
    inputSchema,
    async execute(args, executeOptions) {
      const result = await ask(args, executeOptions)
      return result.ok ? JSON.stringify(result.answer) : sentenceFor(result.error, result.questions)
    },
    async executeForResult(args, executeOptions) {
      const result = await ask(args, executeOptions)
      if (result.ok) {
        return {
          content: [{ type: 'text', text: JSON.stringify(result.answer) }],
          isError: false,
          structuredContent: result.answer,
        }
      }
      const { code, message, details } = result.error
      return {
        content: [{ type: 'text', text: sentenceFor(result.error, result.questions) }],
        isError: true,
        structuredContent: {
          error: details === undefined ? { code, message } : { code, message, details },
        },
      }
    },
  }
}

/**
 * @internal Shared with the framework adapters (they import it through this
 * index); not public API, left out of the declarations.
 */
export { askForFramework, toolOptionsOf } from './framework-call.js'
/** @internal */
export type { FrameworkCall } from './framework-call.js'
