/**
 * askseam/ai-sdk: `ask_user_question` as a tool of the Vercel AI SDK (`ai`
 * 6.x), for `generateText`, `streamText` and agents built on them. This entry
 * point is the only one that loads `ai`.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai'
 * import { createUserQuestions } from 'askseam'
 * import { askUserQuestionTool } from 'askseam/ai-sdk'
 *
 * const seam = createUserQuestions()
 * const result = await generateText({
 *   model,
 *   tools: { ask_user_question: askUserQuestionTool(seam) },
 *   stopWhen: stepCountIs(5),
 *   prompt: 'Set up the database for this project.',
 * })
 * ```
 */
import type { JSONSchema7, Tool } from 'ai'
import { importPeer } from '../../protocol/internal.js'
import type { Agent, UserQuestions } from '../../protocol/index.js'
import {
  askUserQuestionDescription,
  askUserQuestionInputSchema,
  askForFramework,
  toolOptionsOf,
} from '../../tool/index.js'
import type { AskUserQuestionArgs } from '../../tool/index.js'

const ai = await importPeer('askseam/ai-sdk', 'ai', () => import('ai'))

/** Options of {@link askUserQuestionTool}. */
export interface AiSdkAskToolOptions {
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
   * With a store shared by several conversations, prefix the id with the
   * conversation's own id so two conversations never share a key.
   * @default the tool-call id itself
   */
  key?: (toolCallId: string) => string | undefined
}

/**
 * `ask_user_question` in the AI SDK's own tool shape. Each call asks the seam
 * with the call's `abortSignal` and its `toolCallId` as the ask's `key`, and
 * gives the model the same text as `ask_user_question`: the compact JSON of
 * the answers, or `CODE: what happened. What to do next.`
 *
 * The input schema is the tool's JSON Schema, checked by askseam rather than
 * by the SDK, so a malformed call reaches the model as `INVALID_REQUEST`
 * naming the field (arguments that are not JSON at all get the SDK's own
 * tool error). Aborting the run takes the questions down and ends the run
 * with the SDK's abort.
 *
 * @example
 * ```ts
 * const tools = { ask_user_question: askUserQuestionTool(seam, { timeoutMs: 300_000 }) }
 * ```
 */
export function askUserQuestionTool(
  seam: UserQuestions,
  options: AiSdkAskToolOptions = {},
): Tool<AskUserQuestionArgs, string> {
  const toolOptions = toolOptionsOf(options)
  const keyFor = options.key ?? ((toolCallId: string) => toolCallId)
  return ai.tool<AskUserQuestionArgs, string>({
    description: askUserQuestionDescription,
    // No validate function: the arguments arrive as the model wrote them, and
    // the tool's own parser names the bad field.
    inputSchema: ai.jsonSchema<AskUserQuestionArgs>(askUserQuestionInputSchema() as JSONSchema7),
    execute: (input, { toolCallId, abortSignal }) =>
      askForFramework(seam, toolOptions, input, {
        key: keyFor(toolCallId),
        signal: abortSignal,
        agent: options.agent,
      }),
  })
}
