/**
 * askseam/langgraph: `ask_user_question` as a LangChain tool for LangGraph.js
 * (a `ToolNode`, `createReactAgent`, or any graph that runs LangChain tools).
 * This entry point is the only one that loads `@langchain/core`.
 *
 * @example
 * ```ts
 * import { createReactAgent } from '@langchain/langgraph/prebuilt'
 * import { MemorySaver } from '@langchain/langgraph'
 * import { createUserQuestions } from 'askseam'
 * import { askUserQuestionTool } from 'askseam/langgraph'
 *
 * const seam = createUserQuestions()
 * const agent = createReactAgent({ llm, tools: [askUserQuestionTool(seam)], checkpointSaver: new MemorySaver() })
 * await agent.invoke({ messages: [{ role: 'user', content: 'Set up the database.' }] }, { configurable: { thread_id: 't1' } })
 * ```
 */
import type { DynamicStructuredTool, ToolRunnableConfig } from '@langchain/core/tools'
import { importPeer } from '../../protocol/internal.js'
import type { Agent, UserQuestions } from '../../protocol/index.js'
import {
  askUserQuestionDescription,
  askUserQuestionInputSchema,
  askUserQuestionToolName,
  askForFramework,
  toolOptionsOf,
} from '../../tool/index.js'

const tools = await importPeer(
  'askseam/langgraph',
  '@langchain/core',
  () => import('@langchain/core/tools'),
)

/** Options of {@link askUserQuestionTool}. */
export interface LangGraphAskToolOptions {
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
   * The ask's key for a tool call, given the call's id and the graph's
   * `thread_id` when there is one. Return `undefined` for an unkeyed ask.
   * Models number their calls per conversation, so with a store shared by
   * several threads make the key unique across threads.
   * @default the tool-call id itself
   */
  key?: (toolCallId: string, threadId: string | undefined) => string | undefined
}

/**
 * `ask_user_question` as a LangChain structured tool. Each call asks the seam
 * with the run's abort signal and the tool call's id as the ask's `key`, and
 * gives the model the same text as `ask_user_question` (in the `ToolMessage`):
 * the compact JSON of the answers, or `CODE: what happened. What to do next.`
 *
 * The schema is the tool's JSON Schema; LangChain checks it before the call
 * (its own error reaches the model through the `ToolNode`), and askseam checks
 * what JSON Schema cannot say (two questions with one id) as `INVALID_REQUEST`
 * naming the field. Aborting the run takes the questions down and ends the
 * run with LangGraph's abort. After a restart, a graph that re-runs the node
 * asks again with the same key: with a durable store the stored answer comes
 * back at once instead of a second question.
 *
 * @example
 * ```ts
 * const toolNode = new ToolNode([askUserQuestionTool(seam, { timeoutMs: 300_000 })])
 * ```
 */
export function askUserQuestionTool(
  seam: UserQuestions,
  options: LangGraphAskToolOptions = {},
): DynamicStructuredTool {
  const toolOptions = toolOptionsOf(options)
  const keyFor = options.key ?? ((toolCallId: string) => toolCallId)
  return new tools.DynamicStructuredTool({
    name: askUserQuestionToolName,
    description: askUserQuestionDescription,
    schema: askUserQuestionInputSchema(),
    func: (input: unknown, _runManager, config?: ToolRunnableConfig) => {
      const toolCallId = config?.toolCall?.id
      const threadId = config?.configurable?.thread_id as unknown
      return askForFramework(seam, toolOptions, input, {
        key:
          toolCallId === undefined
            ? undefined
            : keyFor(toolCallId, typeof threadId === 'string' ? threadId : undefined),
        signal: config?.signal,
        agent: options.agent,
      })
    },
  })
}
