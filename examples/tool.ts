import { createUserQuestions } from 'askseam'
import { createAskUserQuestionTool } from 'askseam/tool'

const seam = createUserQuestions({ timeoutMs: 300_000 })
seam.registerProvider({
  // a stand-in UI whose user picks each question's first option
  ask: async ({ questions }) => ({
    answers: questions.map(({ id, options }) => ({
      id,
      selected: options?.slice(0, 1).map(({ label }) => label) ?? [],
    })),
  }),
})
const tool = createAskUserQuestionTool(seam)
// register tool.name ('ask_user_question'), tool.description and tool.inputSchema (JSON Schema) with your runtime
const toolCall = new AbortController() // stands for your runtime's tool call
const result = await tool.execute(
  {
    questions: [
      {
        id: 'db',
        question: 'Which database?',
        options: [
          { label: 'Postgres (Recommended)', description: 'Matches production' },
          { label: 'SQLite' },
        ],
      },
    ],
  },
  { signal: toolCall.signal },
)
console.log(result) // {"answers":[{"id":"db","selected":["Postgres (Recommended)"]}]}
// a failure is a line for the model, e.g. 'ASK_TIMEOUT: Nobody answered within 5 minutes. Do not assume an answer; …'
await seam.close()
