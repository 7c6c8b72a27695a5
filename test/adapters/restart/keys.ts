import { createUserQuestions } from '../../../src/protocol/index.js'
import type { AskUserQuestionAnswer, ProviderRequest } from '../../../src/protocol/index.js'

/**
 * Whether the seam on this branch gives `key` its durable meaning (DESIGN
 * §10: a second ask with a pending key attaches instead of asking again).
 * The restart cases need it; until the durable seam is merged they are
 * skipped with this as the reason.
 */
export async function seamAttachesByKey(): Promise<boolean> {
  const seam = createUserQuestions()
  const presented: ProviderRequest[] = []
  let answer: (value: AskUserQuestionAnswer) => void = () => undefined
  seam.registerProvider({
    ask(request) {
      presented.push(request)
      return new Promise((resolve) => (answer = resolve))
    },
  })
  const questions = [{ id: 'q', question: 'Probe?' }]
  const first = seam.ask({ key: 'probe', questions }).catch(() => undefined)
  const second = seam.ask({ key: 'probe', questions }).catch(() => undefined)
  await new Promise((resolve) => setTimeout(resolve, 50))
  answer({ answers: [{ id: 'q', selected: [] }] })
  await Promise.race([Promise.all([first, second]), new Promise((r) => setTimeout(r, 200))])
  await seam.close()
  return presented.length === 1
}

export const durableSeamMissing =
  'needs the durable seam of DESIGN §10 (createUserQuestions({ store }) with keys that attach and replay), not merged on this branch yet'
