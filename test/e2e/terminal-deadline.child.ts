/**
 * A host for test/e2e/terminal-deadline.test.ts: asks one free-text question
 * through the terminal with a short deadline, then, once the ask has failed,
 * reads one line of stdin the plain way (as a shell or the next program
 * would) and prints what it got and whether the terminal is still raw.
 */
import { createInterface } from 'node:readline'
import { createUserQuestions, isUserQuestionError } from '../../src/protocol/index.js'
import { createTerminalProvider } from '../../src/providers/terminal/index.js'

const seam = createUserQuestions({ timeoutMs: Number(process.env.ASKSEAM_DEADLINE_MS ?? 3000) })
const terminal = createTerminalProvider()
seam.registerProvider(terminal)

try {
  await seam.ask({ questions: [{ id: 'name', question: 'What should the service be called?' }] })
  process.stdout.write('RESULT answered\n')
} catch (error: unknown) {
  process.stdout.write(`RESULT ${isUserQuestionError(error) ? error.code : String(error)}\n`)
}
// What the next reader of stdin finds: the mode it is in, then the next line typed.
process.stdout.write(`RAW ${String(process.stdin.isRaw)}\n`)
const lines = createInterface({ input: process.stdin, terminal: false })
const line = await new Promise<string>((resolve) => lines.once('line', resolve))
process.stdout.write(`LINE ${JSON.stringify(line)}\n`)
lines.close()
terminal.dispose()
await seam.close()
