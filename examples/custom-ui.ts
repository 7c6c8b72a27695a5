import { createActor, toPromise } from 'xstate'
import type { ActorRefFrom } from 'xstate'
import { createUserQuestions } from 'askseam'
import {
  canSubmit,
  currentQuestion,
  questionnaireAnswer,
  questionnaireMachine,
} from 'askseam/machines'

type Flow = ActorRefFrom<typeof questionnaireMachine>

const seam = createUserQuestions()
seam.registerProvider({
  async ask({ questions, signal }) {
    const flow = createActor(questionnaireMachine, { input: { questions } }).start()
    signal.addEventListener('abort', () => flow.stop(), { once: true }) // the ask ended elsewhere
    flow.subscribe(() => render(flow))
    render(flow) // subscribe fires on changes only: draw the first question now
    return questionnaireAnswer(await toPromise(flow)) // the answer, or throws ASK_CANCELLED
  },
})

// Your UI draws the question and sends what the user does: option.chosen,
// option.toggled, custom.typed, question.skipped, batch.submitted, batch.cancelled, …
// This stand-in user picks each question's first option, then submits.
function render(flow: Flow): void {
  const snapshot = flow.getSnapshot()
  if (snapshot.status !== 'active') return
  if (canSubmit(snapshot.context)) {
    flow.send({ type: 'batch.submitted' })
    return
  }
  const question = currentQuestion(snapshot.context)
  console.log(
    `? ${question.question} [${question.options?.map(({ label }) => label).join(' | ') ?? 'free text'}]`,
  )
  const first = question.options?.[0]
  flow.send(
    first === undefined
      ? { type: 'question.skipped' }
      : { type: 'option.chosen', label: first.label },
  )
}

const answer = await seam.ask({
  questions: [
    {
      id: 'db',
      question: 'Which database?',
      options: [{ label: 'Postgres' }, { label: 'SQLite' }],
    },
    { id: 'cache', question: 'Which cache?', options: [{ label: 'Redis' }, { label: 'None' }] },
  ],
})
console.log(JSON.stringify(answer)) // {"answers":[{"id":"db","selected":["Postgres"]},{"id":"cache","selected":["Redis"]}]}
await seam.close()
