// README: "Vercel AI SDK (askseam/ai-sdk)". Run: npx tsx --tsconfig examples/adapters/tsconfig.json examples/adapters/ai-sdk.ts
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { createUserQuestions } from 'askseam'
import { askUserQuestionTool } from 'askseam/ai-sdk'
import { answerFirstOption } from './answer-first-option.js'

const seam = createUserQuestions({ timeoutMs: 300_000 })
seam.registerProvider(answerFirstOption)

// Your model goes here (e.g. openai('gpt-5.2')); this one is scripted, so the example needs no network.
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}
const question = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
}
const model = new MockLanguageModelV3({
  doGenerate: [
    {
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call-1',
          toolName: 'ask_user_question',
          input: JSON.stringify({ questions: [question] }),
        },
      ],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage,
      warnings: [],
    },
    {
      content: [{ type: 'text', text: 'Setting up Postgres.' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage,
      warnings: [],
    },
  ],
})

const result = await generateText({
  model,
  tools: { ask_user_question: askUserQuestionTool(seam) },
  stopWhen: stepCountIs(5),
  prompt: 'Set up the database for this project.',
})
for (const step of result.steps) {
  for (const toolResult of step.toolResults) console.log('the model got:', toolResult.output)
}
console.log('the model said:', result.text)
await seam.close()
