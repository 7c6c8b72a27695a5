/**
 * A LangGraph agent in its own process: a scripted model node and a ToolNode
 * with askseam's tool, checkpointed in SQLite, asking through the shared
 * SQLite store. `start` runs a new thread; `resume` continues it from its
 * checkpoint (LangGraph re-runs the interrupted tools node).
 * Usage: langgraph-agent.ts ASKS_DB GRAPH_DB start|resume
 */
import { AIMessage, ToolMessage } from '@langchain/core/messages'
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt'
import { askUserQuestionTool } from '../../../src/adapters/langgraph/index.js'
import { durableSeam } from './durable.js'

const [asksPath, graphPath, mode] = process.argv.slice(2)
if (asksPath === undefined || graphPath === undefined)
  throw new Error('usage: ASKS_DB GRAPH_DB start|resume')
const print = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`)

const dbQuestion = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
}

const seam = durableSeam(asksPath, { waitForProviderMs: 10_000 })
const graph = new StateGraph(MessagesAnnotation)
  .addNode('model', (state) => {
    const results = state.messages.filter((message) => ToolMessage.isInstance(message))
    if (results.length > 0) {
      return { messages: [new AIMessage(`Got: ${String(results[0]!.content)}`)] }
    }
    print({ event: 'model-called-tool' })
    return {
      messages: [
        new AIMessage({
          content: '',
          tool_calls: [
            { id: 'call-1', name: 'ask_user_question', args: { questions: [dbQuestion] } },
          ],
        }),
      ],
    }
  })
  .addNode('tools', new ToolNode([askUserQuestionTool(seam)]))
  .addEdge(START, 'model')
  .addConditionalEdges('model', toolsCondition, ['tools', END])
  .addEdge('tools', 'model')
  .compile({ checkpointer: SqliteSaver.fromConnString(graphPath) })

const config = { configurable: { thread_id: 'thread-1' } }
const state = await graph.invoke(
  mode === 'resume' ? null : { messages: [{ role: 'user', content: 'Set up the database.' }] },
  config,
)
const results = state.messages
  .filter((message) => ToolMessage.isInstance(message))
  .map((message) => String(message.content))
print({ event: 'finished', results, last: String(state.messages.at(-1)?.content) })
await seam.close()
