import { createUserQuestions, UserQuestionError } from 'askseam'
import { createTerminalProvider } from 'askseam/terminal'

const toolCall = new AbortController() // stands for your agent runtime's tool call

const seam = createUserQuestions({ timeoutMs: 120_000 }) // a deadline for every ask
const dispose = seam.registerProvider(createTerminalProvider())
try {
  const { answers } = await seam.ask({
    questions: [
      {
        id: 'db',
        question: 'Which database?',
        header: 'Storage',
        options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
      },
      {
        id: 'checks',
        question: 'Which checks must pass?',
        multiSelect: true,
        options: [{ label: 'Unit' }, { label: 'E2E' }, { label: 'Load' }],
      },
    ],
    signal: toolCall.signal, // aborting the tool call takes the questions down
  })
  console.log(answers) // [{ id: 'db', selected: ['SQLite'] }, { id: 'checks', selected: ['Unit', 'E2E'] }]
} catch (error) {
  if (!(error instanceof UserQuestionError)) throw error
  console.log(error.code === 'ASK_CANCELLED' ? 'The user wants to talk instead.' : error.message)
} finally {
  dispose()
  await seam.close()
}
