import { createAskUserQuestionTool } from '../../tool/index.js'
import type { AskUserQuestionToolOptions } from '../../tool/index.js'
import type { Agent, UserQuestions } from '../../protocol/index.js'

/** One framework tool call, as the adapter hands it to the seam. */
export interface FrameworkCall {
  /** The ask's key: the framework's tool-call id, unless the host maps it. */
  readonly key: string | undefined
  readonly signal: AbortSignal | undefined
  readonly agent: Agent | undefined
}

// The tool takes no key of its own yet, so each keyed call gets the tool over
// a seam that adds the key to the one ask it makes: parsing, the abort and
// caller probes and the result sentences stay the tool's, not a copy here.
function keyedSeam(seam: UserQuestions, key: string): UserQuestions {
  return {
    registerProvider: (provider) => seam.registerProvider(provider),
    ask: (request) => seam.ask({ ...request, key }),
    pending: () => seam.pending(),
    close: () => seam.close(),
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
  const keyed = call.key === undefined || call.key === '' ? seam : keyedSeam(seam, call.key)
  const text = await createAskUserQuestionTool(keyed, options).execute(args, {
    ...(call.signal === undefined ? {} : { signal: call.signal }),
    ...(call.agent === undefined ? {} : { agent: call.agent }),
  })
  if (call.signal?.aborted === true) throw call.signal.reason
  return text
}
