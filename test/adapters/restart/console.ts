/**
 * A console in its own process: a seam over the shared SQLite store with a
 * provider that prints each presented ask and answers it when the test says.
 * Usage: console.ts ASKS_DB
 */
import { createInterface } from 'node:readline'
import type { AskUserQuestionAnswer } from '../../../src/protocol/index.js'
import { durableSeam } from './durable.js'

const [asksPath] = process.argv.slice(2)
if (asksPath === undefined) throw new Error('usage: console.ts ASKS_DB')
const print = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`)

const seam = durableSeam(asksPath)
const answers = new Map<string, (answer: AskUserQuestionAnswer) => void>()
seam.registerProvider({
  ask(request) {
    print({ event: 'presented', askId: request.askId, questions: request.questions })
    request.signal.addEventListener('abort', () =>
      print({ event: 'withdrawn', askId: request.askId }),
    )
    return new Promise((resolve) => answers.set(request.askId, resolve))
  },
})
createInterface({ input: process.stdin }).on('line', (line) => {
  const { askId, answer } = JSON.parse(line) as { askId: string; answer: AskUserQuestionAnswer }
  answers.get(askId)?.(answer)
  print({ event: 'answered', askId })
})
print({ event: 'ready' })
