/**
 * askseam/openai-agents: `ask_user_question` as a function tool of the
 * OpenAI Agents SDK (`@openai/agents`), for agents run by its `Runner`. This
 * entry point is the only one that loads `@openai/agents`.
 *
 * @example
 * ```ts
 * import { Agent, run } from '@openai/agents'
 * import { createUserQuestions } from 'askseam'
 * import { askUserQuestionTool } from 'askseam/openai-agents'
 *
 * const seam = createUserQuestions()
 * const agent = new Agent({ name: 'Builder', tools: [askUserQuestionTool(seam)] })
 * const result = await run(agent, 'Set up the database for this project.')
 * ```
 */
import type { FunctionTool, JsonSchemaDefinition } from '@openai/agents'
import { importPeer } from '../../protocol/internal.js'
import type { Agent, UserQuestions } from '../../protocol/index.js'
import {
  askUserQuestionDescription,
  askUserQuestionInputSchema,
  askUserQuestionToolName,
  parseAskUserQuestionArgs,
  askForFramework,
  toolOptionsOf,
} from '../../tool/index.js'

const agents = await importPeer(
  'askseam/openai-agents',
  '@openai/agents',
  () => import('@openai/agents'),
)

// The SDK's type for a non-strict JSON Schema insists on a top-level
// `additionalProperties: true`; at run time it sends the schema as given, and
// the tool's schema refuses unknown fields so the model learns them from it.
/** The non-strict JSON Schema parameters the tool hands the Agents SDK. */
export type NonStrictParameters = Extract<
  JsonSchemaDefinition['schema'],
  { additionalProperties: true }
>

/** Options of {@link askUserQuestionTool}. */
export interface OpenAiAgentsAskToolOptions {
  /** Deadline of each ask in milliseconds. @default the seam's `timeoutMs` */
  timeoutMs?: number
  /**
   * Who may answer every ask of this tool (DESIGN §12): responder ids, or
   * `role:NAME`. The harness sets it; the model cannot.
   * @default anyone the UI admits
   */
  answerers?: string[]
  /**
   * How many distinct responders must approve a plan review (DESIGN §12); the
   * tool's other asks are asked without it. @default 1
   */
  approvals?: number
  /** The exact live agent that owns this tool, checked by the seam's registry. @default none: the plain provider path */
  agent?: Agent
  /**
   * The ask's key for a tool call. Return `undefined` for an unkeyed ask.
   * With a store shared by several runs, prefix the id with the run's own id
   * so two runs never share a key.
   * @default the call's `callId` itself
   */
  key?: (callId: string) => string | undefined
  /**
   * Park the run while the human decides instead of holding it open: a call
   * raises its (keyed) ask, and the run returns with an interruption for it.
   * Save `result.state.toString()`; the process may then stop. To collect the
   * answer, restore the state, `approve` the interruption and run it again:
   * the call asks under the same key and attaches to the pending ask, or gets
   * the stored answer at once, instead of asking twice. Needs a durable store
   * on the seam when the run resumes in another process.
   * @default false: the call waits for the answer inside the run
   */
  interrupt?: boolean
}

/**
 * `ask_user_question` as an `@openai/agents` function tool. Each call asks
 * the seam with the run's abort signal and the call's `callId` as the ask's
 * `key`, and gives the model the same text as `ask_user_question`: the compact
 * JSON of the answers, or `CODE: what happened. What to do next.`
 *
 * The parameters are the tool's JSON Schema in non-strict mode (its optional
 * fields do not fit strict mode), checked by askseam: a malformed call
 * reaches the model as `INVALID_REQUEST` naming the field, and arguments that
 * are not JSON get the SDK's own tool error. Aborting the run takes the
 * questions down and ends the run with the SDK's abort.
 *
 * @example
 * ```ts
 * const agent = new Agent({ name: 'Builder', tools: [askUserQuestionTool(seam, { timeoutMs: 300_000 })] })
 * ```
 */
export function askUserQuestionTool(
  seam: UserQuestions,
  options: OpenAiAgentsAskToolOptions = {},
): FunctionTool<unknown, NonStrictParameters, string> {
  const toolOptions = toolOptionsOf(options)
  const keyFor = options.key ?? ((callId: string) => callId)
  return agents.tool({
    name: askUserQuestionToolName,
    description: askUserQuestionDescription,
    parameters: askUserQuestionInputSchema() as NonStrictParameters,
    strict: false,
    needsApproval:
      options.interrupt === true
        ? async (_context, input, callId) => {
            const key = callId === undefined ? undefined : keyFor(callId)
            // Only a call that can be resumed by key, with questions worth
            // presenting, is parked; the rest run and answer at once.
            if (key === undefined || !parseAskUserQuestionArgs(input).ok) return false
            // Raised now so the human sees it while the run is parked; the
            // resumed call finds it by key. Its result is the resumed call's.
            void askForFramework(seam, toolOptions, input, {
              key,
              signal: undefined,
              agent: options.agent,
            }).catch(() => undefined)
            return true
          }
        : false,
    execute: (input, _context, details) => {
      const callId = details?.toolCall?.callId
      return askForFramework(seam, toolOptions, input, {
        key: callId === undefined ? undefined : keyFor(callId),
        signal: details?.signal,
        agent: options.agent,
      })
    },
  })
}
