import { Agent, RunState, Runner, Usage, tool } from '@openai/agents'
import type { AgentInputItem, Model, ModelRequest, ModelResponse } from '@openai/agents'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { askUserQuestionTool } from '../../src/adapters/openai-agents/index.js'
import {
  answerNameThenDb,
  dbQuestion,
  nameQuestion,
  nameThenDbResults,
  recordKeys,
} from '../support/adapter-asks.js'
import { seamWithProvider } from '../support/controllable-provider.js'

type Turn = ModelResponse['output']

function calls(...list: Array<{ id: string; input: unknown; name?: string }>): Turn {
  return list.map(({ id, input, name }) => ({
    type: 'function_call' as const,
    callId: id,
    name: name ?? 'ask_user_question',
    arguments: typeof input === 'string' ? input : JSON.stringify(input),
    status: 'completed' as const,
  }))
}

const finalMessage: Turn = [
  {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Done.' }],
  },
]

/**
 * A `Model` that plays `turns` in order and, like a real request, fails with
 * the abort reason once the run's signal has aborted.
 */
function scriptedModel(turns: Turn[]): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    requests,
    async getResponse(request) {
      request.signal?.throwIfAborted()
      requests.push(request)
      const output = turns[requests.length - 1]
      if (output === undefined) throw new Error('the script ran out of turns')
      return { usage: new Usage(), output }
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() {
      throw new Error('this script does not stream')
    },
  }
}

/** What the model was given back for each tool call, by call id. */
function toolResults(request: ModelRequest | undefined): Record<string, unknown> {
  const results: Record<string, unknown> = {}
  const input = request?.input
  if (typeof input === 'string' || input === undefined) return results
  for (const item of input as AgentInputItem[]) {
    if (item.type !== 'function_call_result') continue
    const output = item.output
    results[item.callId] =
      typeof output === 'string'
        ? output
        : !Array.isArray(output) && output.type === 'text'
          ? output.text
          : output
  }
  return results
}

const runner = new Runner({ tracingDisabled: true })

describe('askseam/openai-agents in a Runner', () => {
  it('gives the model the compact JSON of the answer, asked under the call id as key', async () => {
    const { seam, provider } = seamWithProvider()
    const keys = recordKeys(seam)
    const model = scriptedModel([
      calls({ id: 'call-1', input: { questions: [dbQuestion] } }),
      finalMessage,
    ])
    const agent = new Agent({ name: 'Builder', model, tools: [askUserQuestionTool(seam)] })
    const run = runner.run(agent, 'Set up the database.')
    const call = await provider.call(0)
    expect(call.request.questions[0]?.id).toBe('db')
    call.resolve({ answers: [{ id: 'db', selected: ['SQLite'] }] })
    const result = await run
    expect(result.finalOutput).toBe('Done.')
    expect(keys).toEqual(['call-1'])
    expect(toolResults(model.requests[1])).toEqual({
      'call-1': '{"answers":[{"id":"db","selected":["SQLite"]}]}',
    })
  })

  it('answers malformed arguments with INVALID_REQUEST naming the field, and the run goes on', async () => {
    const { seam, provider } = seamWithProvider()
    const model = scriptedModel([
      calls({
        id: 'call-1',
        input: { questions: [{ id: 'db', question: 'Which?', multiSelect: true }] },
      }),
      calls({ id: 'call-2', input: '{"questions": [' }),
      finalMessage,
    ])
    const agent = new Agent({ name: 'Builder', model, tools: [askUserQuestionTool(seam)] })
    const result = await runner.run(agent, 'Go.')
    expect(result.finalOutput).toBe('Done.')
    expect(provider.calls).toHaveLength(0)
    const first = toolResults(model.requests[1])['call-1']
    expect(first).toMatch(/^INVALID_REQUEST: /)
    expect(first).toContain(
      'questions[0].multiSelect: is not a known field (did you mean multi_select?)',
    )
    // Not JSON at all: the SDK's own error reaches the model as the tool result.
    expect(toolResults(model.requests[2])['call-2']).toMatch(
      /^An error occurred while parsing tool arguments/,
    )
  })

  it('takes the question down when the run is aborted while the human decides, and ends with the abort', async () => {
    const { seam, provider } = seamWithProvider()
    const model = scriptedModel([
      calls({ id: 'call-1', input: { questions: [dbQuestion] } }),
      finalMessage,
    ])
    const agent = new Agent({ name: 'Builder', model, tools: [askUserQuestionTool(seam)] })
    const controller = new AbortController()
    const run = runner.run(agent, 'Go.', { signal: controller.signal })
    const call = await provider.call(0)
    const reason = new Error('the user pressed stop')
    controller.abort(reason)
    await expect(run).rejects.toBe(reason)
    expect(call.request.signal.aborted).toBe(true)
    expect(seam.pending()).toEqual([])
    expect(model.requests).toHaveLength(1)
  })

  it('asks twice for two calls in one turn, each under its own key, answered in either order', async () => {
    const { seam, provider } = seamWithProvider()
    const keys = recordKeys(seam)
    const model = scriptedModel([
      calls(
        { id: 'call-a', input: { questions: [dbQuestion] } },
        { id: 'call-b', input: { questions: [nameQuestion] } },
      ),
      finalMessage,
    ])
    const agent = new Agent({ name: 'Builder', model, tools: [askUserQuestionTool(seam)] })
    const run = runner.run(agent, 'Go.')
    await answerNameThenDb(provider)
    await run
    expect(new Set(keys)).toEqual(new Set(['call-a', 'call-b']))
    expect(toolResults(model.requests[1])).toEqual(nameThenDbResults)
  })

  it('keeps the answer through an interrupted run serialised with RunState, restored and resumed', async () => {
    const { seam, provider } = seamWithProvider()
    const model = scriptedModel([
      calls({ id: 'call-1', input: { questions: [dbQuestion] } }),
      calls({ id: 'call-2', name: 'migrate', input: { database: 'SQLite' } }),
      finalMessage,
    ])
    const migrate = tool({
      name: 'migrate',
      description: 'Run the migrations.',
      parameters: z.object({ database: z.string() }),
      needsApproval: true,
      execute: ({ database }) => `migrated ${database}`,
    })
    const agent = new Agent({ name: 'Builder', model, tools: [askUserQuestionTool(seam), migrate] })
    const run = runner.run(agent, 'Set up the database.')
    ;(await provider.call(0)).resolve({ answers: [{ id: 'db', selected: ['SQLite'] }] })
    const interrupted = await run
    expect(interrupted.interruptions).toHaveLength(1)
    const saved = interrupted.state.toString()

    const restored = await RunState.fromString(agent, saved)
    const [approval] = restored.getInterruptions()
    expect(approval?.name).toBe('migrate')
    restored.approve(approval!)
    const resumed = await runner.run(agent, restored)
    expect(resumed.finalOutput).toBe('Done.')
    expect(provider.calls).toHaveLength(1)
    const lastResults = toolResults(model.requests[2])
    expect(lastResults['call-1']).toBe('{"answers":[{"id":"db","selected":["SQLite"]}]}')
    expect(lastResults['call-2']).toBe('migrated SQLite')
  })

  it('with interrupt, parks the run on an interruption while its ask is presented, and runs a malformed call at once', async () => {
    const { seam, provider } = seamWithProvider()
    const model = scriptedModel([
      calls(
        { id: 'call-1', input: { questions: [dbQuestion] } },
        { id: 'call-2', input: { questions: [{ id: 'db', question: ' ' }] } },
      ),
      finalMessage,
    ])
    const agent = new Agent({
      name: 'Builder',
      model,
      tools: [askUserQuestionTool(seam, { interrupt: true })],
    })
    const parked = await runner.run(agent, 'Set up the database.')
    expect(parked.interruptions.map((item) => item.rawItem)).toMatchObject([{ callId: 'call-1' }])
    const presented = await provider.call(0)
    expect(presented.request.questions).toEqual([dbQuestion])
    expect(presented.settled).toBe(false)
    expect(model.requests).toHaveLength(1)
    const serialised = JSON.parse(parked.state.toString()) as unknown
    expect(JSON.stringify(serialised)).toContain(
      'questions[0].question: question must not be blank',
    )
    await seam.close()
  })
})
