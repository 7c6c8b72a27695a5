// README: "OpenAI Agents (askseam/openai-agents)". Run: npx tsx --tsconfig examples/adapters/tsconfig.json examples/adapters/openai-agents.ts
import { Agent, Runner, Usage } from '@openai/agents'
import type { Model } from '@openai/agents'
import { createUserQuestions } from 'askseam'
import { askUserQuestionTool } from 'askseam/openai-agents'
import { answerFirstOption } from './answer-first-option.js'

const seam = createUserQuestions({ timeoutMs: 300_000 })
seam.registerProvider(answerFirstOption)

// Your model goes here (a model name such as 'gpt-5.2'); this one is scripted, so the example needs no network.
const question = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
}
let turn = 0
const model: Model = {
  async getResponse() {
    turn += 1
    if (turn === 1) {
      return {
        usage: new Usage(),
        output: [
          {
            type: 'function_call',
            callId: 'call-1',
            name: 'ask_user_question',
            arguments: JSON.stringify({ questions: [question] }),
            status: 'completed',
          },
        ],
      }
    }
    return {
      usage: new Usage(),
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Setting up Postgres.' }],
        },
      ],
    }
  },
  getStreamedResponse() {
    throw new Error('not scripted')
  },
}

const agent = new Agent({ name: 'Builder', model, tools: [askUserQuestionTool(seam)] })
const result = await new Runner({ tracingDisabled: true }).run(
  agent,
  'Set up the database for this project.',
)
for (const item of result.newItems) {
  if (item.type === 'tool_call_output_item') console.log('the model got:', item.output)
}
console.log('the model said:', result.finalOutput)
await seam.close()
