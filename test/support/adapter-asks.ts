import type { UserQuestions } from '../../src/protocol/index.js'
import type { ControllableProvider, ProviderCall } from './controllable-provider.js'

/**
 * What the framework adapter tests ask through each framework's tool, and
 * how they answer: the same story in every framework, so the same data.
 */

/** The question a scripted model asks first. */
export const dbQuestion = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
}

/** The second call of a two-call turn, beside {@link dbQuestion}. */
export const nameQuestion = { id: 'name', question: 'Project name?' }

/** Records the key of every ask made through `seam`, in order. */
export function recordKeys(seam: UserQuestions): Array<string | undefined> {
  const keys: Array<string | undefined> = []
  const ask = seam.ask.bind(seam)
  seam.ask = (request) => {
    keys.push(request.key)
    return ask(request)
  }
  return keys
}

/**
 * Answers the two asks of a two-call turn, {@link nameQuestion} first, then
 * {@link dbQuestion}, whichever order the framework presented them in.
 */
export async function answerNameThenDb(provider: ControllableProvider): Promise<void> {
  const both = [await provider.call(0), await provider.call(1)]
  const byId = (id: string) =>
    both.find((call) => call.request.questions[0]?.id === id) as ProviderCall
  byId('name').resolve({ answers: [{ id: 'name', selected: [], custom: 'atlas' }] })
  byId('db').resolve({ answers: [{ id: 'db', selected: ['Postgres (Recommended)'] }] })
}

/** What the model must get back after {@link answerNameThenDb}, by call id. */
export const nameThenDbResults = {
  'call-a': '{"answers":[{"id":"db","selected":["Postgres (Recommended)"]}]}',
  'call-b': '{"answers":[{"id":"name","selected":[],"custom":"atlas"}]}',
}
