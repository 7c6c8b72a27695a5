import type { AskInput } from '../../src/machines/index.js'

/** One yes-or-no question: what the bare-machine tests ask. */
export const questions = [
  { id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] },
]

/** A bare ask `a1` of {@link questions}, started at 0 with a provider here, no wait and no grace. */
export function askInput(extra: Partial<AskInput> = {}): AskInput {
  return {
    askId: 'a1',
    questions,
    startedAt: 0,
    waitForProviderMs: 0,
    providerGraceMs: 0,
    providerHere: true,
    ...extra,
  }
}
