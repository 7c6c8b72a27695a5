import { AIMessage, ToolMessage } from '@langchain/core/messages'
import type { BaseMessage } from '@langchain/core/messages'
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import type { BaseCheckpointSaver } from '@langchain/langgraph'
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt'
import { describe, expect, it } from 'vitest'
import { askUserQuestionTool } from '../../src/adapters/langgraph/index.js'
import type { UserQuestions } from '../../src/protocol/index.js'
import {
  answerNameThenDb,
  dbQuestion,
  nameQuestion,
  nameThenDbResults,
  recordKeys,
} from '../support/adapter-asks.js'
import { seamWithProvider } from '../support/controllable-provider.js'

type Turn = AIMessage

function calls(...list: Array<{ id: string; input: Record<string, unknown> }>): Turn {
  return new AIMessage({
    content: '',
    tool_calls: list.map(({ id, input }) => ({
      id,
      name: 'ask_user_question',
      args: input,
      type: 'tool_call' as const,
    })),
  })
}

const finalMessage = (): Turn => new AIMessage('Done.')

/**
 * A graph of a scripted model node and a `ToolNode`: the model node plays
 * `turns` in order and records the messages it was given.
 */
function scriptedGraph(seam: UserQuestions, turns: Turn[], checkpointer?: BaseCheckpointSaver) {
  const seen: BaseMessage[][] = []
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('model', (state) => {
      seen.push(state.messages)
      const turn = turns[seen.length - 1]
      if (turn === undefined) throw new Error('the script ran out of turns')
      return { messages: [turn] }
    })
    .addNode('tools', new ToolNode([askUserQuestionTool(seam)]))
    .addEdge(START, 'model')
    .addConditionalEdges('model', toolsCondition, ['tools', END])
    .addEdge('tools', 'model')
    .compile(checkpointer === undefined ? {} : { checkpointer })
  return { graph, seen }
}

/** What the model was given back for each tool call, by tool-call id. */
function toolResults(messages: BaseMessage[] | undefined): Record<string, unknown> {
  const results: Record<string, unknown> = {}
  for (const message of messages ?? []) {
    if (ToolMessage.isInstance(message)) results[message.tool_call_id] = message.content
  }
  return results
}

const start = { messages: [{ role: 'user', content: 'Set up the database.' }] }

describe('askseam/langgraph in a StateGraph with a ToolNode', () => {
  it('gives the model the compact JSON of the answer, asked under the tool-call id as key', async () => {
    const { seam, provider } = seamWithProvider()
    const keys = recordKeys(seam)
    const { graph, seen } = scriptedGraph(seam, [
      calls({ id: 'call-1', input: { questions: [dbQuestion] } }),
      finalMessage(),
    ])
    const run = graph.invoke(start)
    ;(await provider.call(0)).resolve({ answers: [{ id: 'db', selected: ['SQLite'] }] })
    const state = await run
    expect(state.messages.at(-1)?.content).toBe('Done.')
    expect(keys).toEqual(['call-1'])
    expect(toolResults(seen[1])).toEqual({
      'call-1': '{"answers":[{"id":"db","selected":["SQLite"]}]}',
    })
  })

  it('answers malformed arguments as a tool message, never a crash of the graph', async () => {
    const { seam, provider } = seamWithProvider()
    const twice = { id: 'db', question: 'Which?' }
    const { graph, seen } = scriptedGraph(seam, [
      calls({ id: 'call-1', input: { questions: [twice, twice] } }),
      calls({
        id: 'call-2',
        input: { questions: [{ id: 'db', question: 'Which?', multiSelect: true }] },
      }),
      finalMessage(),
    ])
    const state = await graph.invoke(start)
    expect(state.messages.at(-1)?.content).toBe('Done.')
    expect(provider.calls).toHaveLength(0)
    // What JSON Schema cannot say, askseam says, naming the field.
    expect(toolResults(seen[1])['call-1']).toMatch(
      /^INVALID_REQUEST: questions\[1\]\.id: id "db" is used by another question/,
    )
    // What it can, LangChain's own schema check reports through the ToolNode.
    expect(toolResults(seen[2])['call-2']).toMatch(/did not match expected schema/)
  })

  it('takes the question down when the run is aborted while the human decides, and ends with the abort', async () => {
    const { seam, provider } = seamWithProvider()
    const { graph, seen } = scriptedGraph(seam, [
      calls({ id: 'call-1', input: { questions: [dbQuestion] } }),
      finalMessage(),
    ])
    const controller = new AbortController()
    const run = graph.invoke(start, { signal: controller.signal })
    const call = await provider.call(0)
    controller.abort(new Error('the user pressed stop'))
    await expect(run).rejects.toThrow(/abort|the user pressed stop/i)
    expect(call.request.signal.aborted).toBe(true)
    expect(seam.pending()).toEqual([])
    expect(seen).toHaveLength(1)
  })

  it('asks twice for two tool calls in one step, each under its own key, answered in either order', async () => {
    const { seam, provider } = seamWithProvider()
    const keys = recordKeys(seam)
    const { graph, seen } = scriptedGraph(seam, [
      calls(
        { id: 'call-a', input: { questions: [dbQuestion] } },
        { id: 'call-b', input: { questions: [nameQuestion] } },
      ),
      finalMessage(),
    ])
    const run = graph.invoke(start)
    await answerNameThenDb(provider)
    await run
    expect(new Set(keys)).toEqual(new Set(['call-a', 'call-b']))
    expect(toolResults(seen[1])).toEqual(nameThenDbResults)
  })

  it('re-runs the tools node when an aborted thread resumes from its checkpoint, asking under the same key', async () => {
    const { seam, provider } = seamWithProvider()
    const keys = recordKeys(seam)
    const { graph, seen } = scriptedGraph(
      seam,
      [calls({ id: 'call-1', input: { questions: [dbQuestion] } }), finalMessage()],
      new MemorySaver(),
    )
    const config = { configurable: { thread_id: 'thread-1' } }
    const controller = new AbortController()
    const first = graph.invoke(start, { ...config, signal: controller.signal })
    const withdrawn = await provider.call(0)
    controller.abort()
    await expect(first).rejects.toThrow()
    expect(withdrawn.request.signal.aborted).toBe(true)

    // The checkpoint holds the model's tool call; resuming the thread re-runs the tools node.
    const resumed = graph.invoke(null, config)
    ;(await provider.call(1)).resolve({ answers: [{ id: 'db', selected: ['SQLite'] }] })
    const state = await resumed
    expect(state.messages.at(-1)?.content).toBe('Done.')
    expect(keys).toEqual(['call-1', 'call-1'])
    expect(seen).toHaveLength(2)
    expect(toolResults(seen[1])).toEqual({
      'call-1': '{"answers":[{"id":"db","selected":["SQLite"]}]}',
    })
  })
})
