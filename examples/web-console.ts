import { createUserQuestions } from 'askseam'
import { startWebConsole } from 'askseam/web'

const seam = createUserQuestions({ timeoutMs: 10 * 60_000 })
const web = await startWebConsole({ seam }) // 127.0.0.1, a free port, a fresh token
console.log(`Answer in your browser: ${web.url}`)
const answer = await seam.ask({
  questions: [
    {
      id: 'region',
      question: 'Where to deploy?',
      options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
    },
  ],
})
console.log(JSON.stringify(answer))
await web.close() // withdraws pending asks and closes every tab's socket
await seam.close()
