import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import type { AskUserQuestionItem, UserQuestions } from '../protocol/index.js'
import type { Model } from '@openai/agents'
import type { AskTool } from './demo.js'

/** The frameworks `askseam demo --framework` can run the scripted agent in. */
export const demoFrameworks = ['ai-sdk', 'openai-agents', 'langgraph'] as const

/** One of {@link demoFrameworks}. */
export type DemoFramework = (typeof demoFrameworks)[number]

/** Whether `name` is a framework the demo can run in. */
export function isDemoFramework(name: string): name is DemoFramework {
  return (demoFrameworks as readonly string[]).includes(name)
}

/** A one-line note on what runs the agent, printed before the demo starts. */
export const frameworkNote: Readonly<Record<DemoFramework, string>> = {
  'ai-sdk': 'Framework: the AI SDK (generateText with a scripted MockLanguageModelV3)',
  'openai-agents': 'Framework: OpenAI Agents (a Runner with a scripted Model)',
  langgraph: 'Framework: LangGraph.js (a StateGraph with a scripted model node and a ToolNode)',
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

/** The same with `@openai/agents`: a scripted `Model` run by the SDK's `Runner`. */
async function openAiAgentsAskTool(seam: UserQuestions): Promise<AskTool> {
  const { askUserQuestionTool } = await import('../adapters/openai-agents/index.js')
  const { Agent, Runner, Usage } = await import('@openai/agents')
  const tool = askUserQuestionTool(seam)
  const runner = new Runner({ tracingDisabled: true })
  let calls = 0
  return async (questions, signal) => {
    calls += 1
    const callId = `demo-call-${calls}`
    let received: string | undefined
    const model: Model = {
      async getResponse({ input }) {
        const result =
          typeof input === 'string'
            ? undefined
            : input.find((item) => item.type === 'function_call_result' && item.callId === callId)
        if (result?.type !== 'function_call_result') {
          const args = JSON.stringify(toToolArguments(questions))
          return {
            usage: new Usage(),
            output: [{ type: 'function_call', callId, name: 'ask_user_question', arguments: args }],
          }
        }
        const { output } = result
        received =
          typeof output === 'string'
            ? output
            : !Array.isArray(output) && output.type === 'text'
              ? output.text
              : JSON.stringify(output)
        const text = [{ type: 'output_text' as const, text: 'Noted.' }]
        return {
          usage: new Usage(),
          output: [{ type: 'message', role: 'assistant', status: 'completed', content: text }],
        }
      },
      getStreamedResponse() {
        throw new Error('the demo model does not stream')
      },
    }
    const agent = new Agent({ name: 'Deployer', model, tools: [tool] })
    await runner.run(
      agent,
      'Plan the deployment of checkout-service v2.4.0.',
      signal === undefined ? {} : { signal },
    )
    if (received === undefined) throw new Error('the scripted model never received the result')
    return received
  }
}

/** The same with LangGraph.js: a scripted model node and a `ToolNode` in a `StateGraph`. */
async function langGraphAskTool(seam: UserQuestions): Promise<AskTool> {
  const { askUserQuestionTool } = await import('../adapters/langgraph/index.js')
  const [{ AIMessage, ToolMessage }, { END, MessagesAnnotation, START, StateGraph }, prebuilt] =
    await Promise.all([
      import('@langchain/core/messages'),
      import('@langchain/langgraph'),
      import('@langchain/langgraph/prebuilt'),
    ])
  const tools = new prebuilt.ToolNode([askUserQuestionTool(seam)])
  let calls = 0
  return async (questions, signal) => {
    calls += 1
    const id = `demo-call-${calls}`
    let received: string | undefined
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('model', (state) => {
        const result = state.messages.find(
          (message) => ToolMessage.isInstance(message) && message.tool_call_id === id,
        )
        if (result === undefined) {
          const args = toToolArguments(questions)
          const call = { id, name: 'ask_user_question', args }
          return { messages: [new AIMessage({ content: '', tool_calls: [call] })] }
        }
        received = typeof result.content === 'string' ? result.content : JSON.stringify(result)
        return { messages: [new AIMessage('Noted.')] }
      })
      .addNode('tools', tools)
      .addEdge(START, 'model')
      .addConditionalEdges('model', prebuilt.toolsCondition, ['tools', END])
      .addEdge('tools', 'model')
      .compile()
    const start = { messages: [{ role: 'user', content: 'Plan the deployment.' }] }
    await graph.invoke(start, signal === undefined ? {} : { signal })
    if (received === undefined) throw new Error('the scripted model never received the result')
    return received
  }
}

/** The demo's `ask_user_question` call, run inside `framework`'s own agent loop. */
export function frameworkAskTool(framework: DemoFramework, seam: UserQuestions): Promise<AskTool> {
  switch (framework) {
    case 'ai-sdk':
      return aiSdkAskTool(seam)
    case 'openai-agents':
      return openAiAgentsAskTool(seam)
    case 'langgraph':
      return langGraphAskTool(seam)
  }
}
