// Two processes share one SQLite file: this one asks with a key; any other
// seam on the file that has a UI (e.g. `askseam console --store asks.sqlite`)
// presents the question. Kill this process and run it again: the ask with the
// same key attaches to the pending question, or returns the answer given
// meanwhile, instead of asking twice.
import { createUserQuestions } from 'askseam'
import { createSqliteStore } from 'askseam/sqlite'

const store = createSqliteStore({ path: 'asks.sqlite' })
const seam = createUserQuestions({ store, timeoutMs: 10 * 60_000 })
try {
  const { answers } = await seam.ask({
    key: 'deploy-42/confirm', // the caller's own id for this ask, e.g. the tool-call id
    questions: [
      {
        id: 'go',
        question: 'Deploy v2.4.0 to production?',
        options: [{ label: 'Deploy' }, { label: 'Wait' }],
      },
    ],
  })
  console.log(answers)
} finally {
  await seam.close() // leaves the keyed ask pending in the store if nobody answered yet
  await store.close()
}
