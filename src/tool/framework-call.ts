import type { Agent, UserQuestions } from '../protocol/index.js'
import { checkPolicy, createAskUserQuestionTool } from './index.js'
import type { AskUserQuestionToolOptions } from './index.js'

/**
 * One tool call of an agent framework, as an adapter (askseam/ai-sdk,
 * askseam/openai-agents, askseam/langgraph) hands it over.
 */
export interface FrameworkCall {
  /** The ask's key: the framework's tool-call id, unless the host maps it. */
  readonly key: string | undefined
  readonly signal: AbortSignal | undefined
  readonly agent: Agent | undefined
}

/**
 * The tool options an adapter's options carry: the deadline and the harness's
 * policy, checked now (a bad one throws when the adapter's tool is made).
 */
export function toolOptionsOf(options: AskUserQuestionToolOptions): AskUserQuestionToolOptions {
  checkPolicy(options)
  return {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.answerers === undefined ? {} : { answerers: options.answerers }),
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
  }
}

/**
 * Runs `ask_user_question` for one framework call and resolves with the
 * tool's text (compact JSON of the answers, or `CODE: sentence`). When the
 * framework's own signal aborted, it rejects with that signal's reason
 * instead: the run is over, and the framework ends it with its own abort.
 */
export async function askForFramework(
  seam: UserQuestions,
  options: AskUserQuestionToolOptions,
  args: unknown,
  call: FrameworkCall,
): Promise<string> {
  const text = await createAskUserQuestionTool(seam, options).execute(args, {
    ...(call.signal === undefined ? {} : { signal: call.signal }),
    ...(call.agent === undefined ? {} : { agent: call.agent }),
    ...(call.key === undefined || call.key === '' ? {} : { key: call.key }),
  })
  if (call.signal?.aborted === true) throw call.signal.reason
  return text
}
