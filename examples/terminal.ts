import { createUserQuestions } from 'askseam'
import { createTerminalProvider } from 'askseam/terminal'

const seam = createUserQuestions({ timeoutMs: 120_000 })
const terminal = createTerminalProvider() // { input?, output?, color?, summary? }
const unregister = seam.registerProvider(terminal)
const answer = await seam
  .ask({ questions: [{ id: 'name', question: 'What should the service be called?' }] })
  .then(JSON.stringify, String) // without a TTY: PROVIDER_FAILED, saying what to do instead
console.log(answer)
unregister()
terminal.dispose() // takes down the question on screen and rejects queued asks (ASK_ABORTED)
await seam.close()
