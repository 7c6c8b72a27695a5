import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import type { AskUserQuestionItem, UserQuestions } from '../protocol/index.js'
import type { AskTool } from './demo.js'

/** The frameworks `askseam demo --framework` can run the scripted agent in. */
export const demoFrameworks = ['ai-sdk'] as const

/** One of {@link demoFrameworks}. */
export type DemoFramework = (typeof demoFrameworks)[number]

/** Whether `name` is a framework the demo can run in. */
export function isDemoFramework(name: string): name is DemoFramework {
  return (demoFrameworks as readonly string[]).includes(name)
}

/** A one-line note on what runs the agent, printed before the demo starts. */
export const frameworkNote: Readonly<Record<DemoFramework, string>> = {
  'ai-sdk': 'Framework: the AI SDK (generateText with a scripted MockLanguageModelV3)',
}

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
}

/** What the scripted model writes as the tool's arguments: the batch, in snake_case. */
function toToolArguments(questions: readonly AskUserQuestionItem[]) {
  return {
    questions: questions.map(({ multiSelect, ...rest }) =>
      multiSelect === undefined ? rest : { ...rest, multi_select: multiSelect },
    ),
  }
}

/** The text the model was handed back for `toolCallId` in the prompt of its next call. */
function toolResultIn(prompt: LanguageModelV3CallOptions['prompt'], toolCallId: string): string {
  for (const message of prompt) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type !== 'tool-result' || part.toolCallId !== toolCallId) continue
      const { output } = part
      return output.type === 'text' || output.type === 'error-text'
        ? output.value
        : JSON.stringify(output)
    }
  }
  throw new Error(`the model was not handed a result for ${toolCallId}`)
}

/**
 * The demo's `ask_user_question` call run by the AI SDK: a scripted model
 * emits the tool call, `generateText` runs `askseam/ai-sdk`'s tool (which asks
 * the seam), and the model's next call receives the result. The demo prints
 * that result, read from the model's own prompt.
 */
async function aiSdkAskTool(seam: UserQuestions): Promise<AskTool> {
  // The adapter first: without `ai` installed it fails with one line naming it.
  const { askUserQuestionTool } = await import('../adapters/ai-sdk/index.js')
  const [{ generateText, stepCountIs }, { MockLanguageModelV3 }] = await Promise.all([
    import('ai'),
    import('ai/test'),
  ])
  const tools = { ask_user_question: askUserQuestionTool(seam) }
  let calls = 0
  return async (questions, signal) => {
    calls += 1
    const toolCallId = `demo-call-${calls}`
    let received: string | undefined
    const toolCall: LanguageModelV3GenerateResult = {
      content: [
        {
          type: 'tool-call',
          toolCallId,
          toolName: 'ask_user_question',
          input: JSON.stringify(toToolArguments(questions)),
        },
      ],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage,
      warnings: [],
    }
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        if (prompt.every((message) => message.role !== 'tool')) return toolCall
        received = toolResultIn(prompt, toolCallId)
        return {
          content: [{ type: 'text', text: 'Noted.' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        }
      },
    })
    await generateText({
      model,
      tools,
      stopWhen: stepCountIs(2),
      prompt: 'Plan the deployment of checkout-service v2.4.0.',
      ...(signal === undefined ? {} : { abortSignal: signal }),
    })
    if (received === undefined) throw new Error('the scripted model never received the result')
    return received
  }
}

/** The demo's `ask_user_question` call, run inside `framework`'s own agent loop. */
export function frameworkAskTool(framework: DemoFramework, seam: UserQuestions): Promise<AskTool> {
  switch (framework) {
    case 'ai-sdk':
      return aiSdkAskTool(seam)
  }
}
