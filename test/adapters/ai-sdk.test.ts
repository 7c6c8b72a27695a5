import { generateText, simulateReadableStream, stepCountIs, streamText } from 'ai'
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { askUserQuestionTool } from '../../src/adapters/ai-sdk/index.js'
import type { UserQuestions } from '../../src/protocol/index.js'
import {
  answerNameThenDb,
  dbQuestion,
  nameQuestion,
  nameThenDbResults,
  recordKeys,
} from '../support/adapter-asks.js'
import { seamWithProvider } from '../support/controllable-provider.js'

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

function toolCalls(...calls: Array<{ id: string; input: unknown }>): LanguageModelV3GenerateResult {
  return {
    content: calls.map(({ id, input }) => ({
      type: 'tool-call' as const,
      toolCallId: id,
      toolName: 'ask_user_question',
      input: typeof input === 'string' ? input : JSON.stringify(input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  }
}

const done: LanguageModelV3GenerateResult = {
  content: [{ type: 'text', text: 'Done.' }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
}

/**
 * A model that plays `turns` in order and, like a real provider's request,
 * fails with the call's abort reason once the run is aborted.
 */
function scriptedModel(turns: LanguageModelV3GenerateResult[]) {
  const prompts: LanguageModelV3CallOptions['prompt'][] = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      options.abortSignal?.throwIfAborted()
      prompts.push(options.prompt)
      const turn = turns[prompts.length - 1]
      if (turn === undefined) throw new Error('the script ran out of turns')
      return turn
    },
  })
  return { model, prompts }
}

/** What the model was given back for each tool call, by tool-call id. */
function toolResults(prompt: LanguageModelV3CallOptions['prompt'] | undefined) {
  const results: Record<string, unknown> = {}
  for (const message of prompt ?? []) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue
      const output = part.output
      results[part.toolCallId] =
        output.type === 'text' || output.type === 'error-text' ? output.value : output
    }
  }
  return results
}

/** `generateText` with the tool as the model knows it, for up to `steps` steps. */
function runWithTool(
  seam: UserQuestions,
  model: MockLanguageModelV3,
  options: { prompt?: string; steps?: number; abortSignal?: AbortSignal } = {},
) {
  const { prompt = 'Go.', steps = 5, abortSignal } = options
  return generateText({
    model,
    tools: { ask_user_question: askUserQuestionTool(seam) },
    stopWhen: stepCountIs(steps),
    prompt,
    ...(abortSignal === undefined ? {} : { abortSignal }),
  })
}

describe('askseam/ai-sdk in generateText', () => {
  it('gives the model the compact JSON of the answer, asked with the tool-call id as key', async () => {
    const { seam, provider } = seamWithProvider()
    const { model, prompts } = scriptedModel([
      toolCalls({ id: 'call-1', input: { questions: [dbQuestion] } }),
      done,
    ])
    const run = runWithTool(seam, model, { prompt: 'Set up the database.' })
    const call = await provider.call(0)
    expect(call.request.questions).toEqual([
      {
        id: 'db',
        question: 'Which database?',
        options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
      },
    ])
    call.resolve({ answers: [{ id: 'db', selected: ['SQLite'] }] })
    const result = await run
    expect(result.text).toBe('Done.')
    expect(toolResults(prompts[1])).toEqual({
      'call-1': '{"answers":[{"id":"db","selected":["SQLite"]}]}',
    })
  })

  it('passes the tool-call id through as the ask key', async () => {
    const { seam, provider } = seamWithProvider()
    const keys = recordKeys(seam)
    const { model } = scriptedModel([
      toolCalls({ id: 'call-7', input: { questions: [dbQuestion] } }),
      done,
    ])
    const run = runWithTool(seam, model)
    ;(await provider.call(0)).resolve({ answers: [{ id: 'db', selected: [] }] })
    await run
    expect(keys).toEqual(['call-7'])
  })

  it('answers malformed arguments with INVALID_REQUEST naming the field, and the loop goes on', async () => {
    const { seam, provider } = seamWithProvider()
    const { model, prompts } = scriptedModel([
      toolCalls({
        id: 'call-1',
        input: { questions: [{ id: 'db', question: 'Which?', options: [{ label: ' ' }] }] },
      }),
      toolCalls({ id: 'call-2', input: { questions: [{ id: 'db', text: 'Which?' }] } }),
      toolCalls({ id: 'call-3', input: '{"questions": [' }),
      done,
    ])
    const result = await runWithTool(seam, model, { steps: 6 })
    expect(result.text).toBe('Done.')
    expect(provider.calls).toHaveLength(0)
    const first = toolResults(prompts[1])['call-1']
    expect(first).toMatch(
      /^INVALID_REQUEST: questions\[0\]\.options\[0\]\.label: label must not be blank/,
    )
    const second = toolResults(prompts[2])['call-2']
    expect(second).toMatch(/^INVALID_REQUEST: /)
    expect(second).toContain('questions[0].text: is not a known field (did you mean question?)')
    // Not JSON at all: the SDK's own input error reaches the model as the tool's error.
    const third = toolResults(prompts[3])['call-3']
    expect(third).toMatch(/^Invalid input for tool ask_user_question: JSON parsing failed/)
  })

  it('takes the question down when the run is aborted while the human decides, and ends with the abort', async () => {
    const { seam, provider } = seamWithProvider()
    const { model, prompts } = scriptedModel([
      toolCalls({ id: 'call-1', input: { questions: [dbQuestion] } }),
      done,
    ])
    const controller = new AbortController()
    const run = runWithTool(seam, model, { abortSignal: controller.signal })
    const call = await provider.call(0)
    const reason = new Error('the user pressed stop')
    controller.abort(reason)
    await expect(run).rejects.toBe(reason)
    expect(call.request.signal.aborted).toBe(true)
    expect(seam.pending()).toEqual([])
    expect(prompts).toHaveLength(1)
  })

  it('asks twice for two tool calls in one step, each under its own key, answered in either order', async () => {
    const { seam, provider } = seamWithProvider()
    const keys = recordKeys(seam)
    const { model, prompts } = scriptedModel([
      toolCalls(
        { id: 'call-a', input: { questions: [dbQuestion] } },
        { id: 'call-b', input: { questions: [nameQuestion] } },
      ),
      done,
    ])
    const run = runWithTool(seam, model)
    await answerNameThenDb(provider)
    await run
    expect(new Set(keys)).toEqual(new Set(['call-a', 'call-b']))
    expect(toolResults(prompts[1])).toEqual(nameThenDbResults)
  })

  it('works the same in streamText: the streamed tool call is asked, and the next step gets the answer', async () => {
    const { seam, provider } = seamWithProvider()
    const prompts: LanguageModelV3CallOptions['prompt'][] = []
    const finish = (unified: 'tool-calls' | 'stop'): LanguageModelV3StreamPart => ({
      type: 'finish',
      finishReason: { unified, raw: undefined },
      usage,
    })
    const turns: LanguageModelV3StreamPart[][] = [
      [
        {
          type: 'tool-call',
          toolCallId: 'call-1',
          toolName: 'ask_user_question',
          input: JSON.stringify({ questions: [dbQuestion] }),
        },
        finish('tool-calls'),
      ],
      [
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Done.' },
        { type: 'text-end', id: 't' },
        finish('stop'),
      ],
    ]
    const model = new MockLanguageModelV3({
      doStream: async ({ prompt }) => {
        prompts.push(prompt)
        return { stream: simulateReadableStream({ chunks: turns[prompts.length - 1] ?? [] }) }
      },
    })
    const result = streamText({
      model,
      tools: { ask_user_question: askUserQuestionTool(seam) },
      stopWhen: stepCountIs(5),
      prompt: 'Go.',
    })
    ;(await provider.call(0)).resolve({ answers: [{ id: 'db', selected: ['SQLite'] }] })
    expect(await result.text).toBe('Done.')
    expect(toolResults(prompts[1])).toEqual({
      'call-1': '{"answers":[{"id":"db","selected":["SQLite"]}]}',
    })
  })
})
