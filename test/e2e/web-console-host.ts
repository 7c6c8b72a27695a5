/**
 * A console host in its own process, for tests that kill it with SIGKILL:
 * starts a seam and the web console, asks one question, and prints the
 * console's URL as one JSON line.
 */
import { createUserQuestions } from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'

const seam = createUserQuestions()
const web = await startWebConsole({ seam })
seam
  .ask({ questions: [{ id: 'name', question: 'What should the release be called?' }] })
  .catch(() => undefined)
process.stdout.write(`${JSON.stringify({ url: web.url })}\n`)
