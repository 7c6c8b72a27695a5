/**
 * A process asking through a seam on a Postgres store, for
 * durable-postgres.test.ts. Its provider never answers (a human who walked
 * away): it prints what it is shown. One JSON line per event on stdout.
 *
 *   node --import tsx durable-postgres.child.ts URL KEY
 */
import { createUserQuestions, isUserQuestionError } from '../../src/protocol/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { durableQuestions } from './durable-postgres.questions.js'

const [url, key] = process.argv.slice(2)
const say = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`)
const store = createPostgresStore({ connectionString: url as string })
const seam = createUserQuestions({ store })
seam.registerProvider({
  ask: ({ askId, signal }) => {
    say({ presented: askId })
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
  },
})
try {
  const answer = await seam.ask({ key: key as string, questions: durableQuestions })
  say({ answered: answer })
} catch (error: unknown) {
  say({ error: isUserQuestionError(error) ? error.code : String(error) })
}
await seam.close()
await store.close()
