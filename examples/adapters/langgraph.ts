// README: "LangGraph.js (askseam/langgraph)". Run: npx tsx --tsconfig examples/adapters/tsconfig.json examples/adapters/langgraph.ts
import { AIMessage, ToolMessage } from '@langchain/core/messages'
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt'
import { createUserQuestions } from 'askseam'
import { askUserQuestionTool } from 'askseam/langgraph'
import { answerFirstOption } from './answer-first-option.js'

const seam = createUserQuestions({ timeoutMs: 300_000 })
seam.registerProvider(answerFirstOption)

// Your chat model goes here (llm.bindTools(tools).invoke(state.messages)); this node is scripted, so the example needs no network.
const question = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
}
const callModel = (state: typeof MessagesAnnotation.State) => ({
  messages: [
    state.messages.some((message) => ToolMessage.isInstance(message))
      ? new AIMessage('Setting up Postgres.')
      : new AIMessage({
          content: '',
          tool_calls: [
            { id: 'call-1', name: 'ask_user_question', args: { questions: [question] } },
          ],
        }),
  ],
})

const graph = new StateGraph(MessagesAnnotation)
  .addNode('model', callModel)
  .addNode('tools', new ToolNode([askUserQuestionTool(seam)]))
  .addEdge(START, 'model')
  .addConditionalEdges('model', toolsCondition, ['tools', END])
  .addEdge('tools', 'model')
  .compile({ checkpointer: new MemorySaver() })

const state = await graph.invoke(
  { messages: [{ role: 'user', content: 'Set up the database for this project.' }] },
  { configurable: { thread_id: 'project-setup' } },
)
for (const message of state.messages) {
  if (ToolMessage.isInstance(message)) console.log('the model got:', message.content)
}
console.log('the model said:', state.messages.at(-1)?.content)
await seam.close()
