/**
 * What `close()` costs per pending ask with 100,000 asks pending against 1,000
 * (DESIGN §9: at most 1.2×), beside the plain-promise seam (bench/plain-seam.ts)
 * closed the same way. Every ask is presented to a provider that never answers
 * and has a caller on one shared signal and a deadline an hour ahead; the time
 * runs from `close()` until it resolves, when every caller has been rejected.
 *
 *   npm run bench -- close
 *
 * Environment: BENCH_PENDING (default 100000) asks in the large seam.
 */
import { createUserQuestions } from '../src/protocol/index.js'
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from '../src/protocol/index.js'
import { createPlainSeam } from './plain-seam.js'
import { gc, goal, median, table, turn } from './measure.js'

const LARGE = Number(process.env.BENCH_PENDING ?? 100_000)
const SMALL = 1_000
/** Closes of the small seam in each round; the round takes their median. */
const SMALL_REPEATS = 15
const ROUNDS = 3

interface Subject {
  name: string
  make(): {
    registerProvider(provider: { ask(): Promise<AskUserQuestionAnswer> }): () => void
    ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>
    close(): Promise<void>
  }
}
const subjects: Subject[] = [
  { name: 'askseam', make: () => createUserQuestions() },
  { name: 'plain promise', make: () => createPlainSeam() },
]

const never = new Promise<AskUserQuestionAnswer>(() => {})
const request = {
  questions: [
    {
      id: 'region',
      question: 'Which region?',
      options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
    },
    { id: 'notes', question: 'Anything else?' },
  ],
  signal: new AbortController().signal,
  timeoutMs: 3_600_000,
}

/** Milliseconds per ask that `close()` of a seam with `count` presented asks takes. */
async function closePerAsk(subject: Subject, count: number): Promise<number> {
  const seam = subject.make()
  seam.registerProvider({ ask: () => never })
  let rejected = 0
  for (let i = 0; i < count; i++) {
    seam.ask(request).catch(() => {
      rejected++
    })
  }
  await turn()
  gc()
  const started = performance.now()
  await seam.close()
  const elapsed = performance.now() - started
  await turn()
  if (rejected !== count) throw new Error(`bench: close() rejected ${rejected} of ${count} callers`)
  return elapsed / count
}

const perAsk = new Map(
  subjects.map(({ name }) => [
    name,
    { small: [] as number[], large: [] as number[], ratios: [] as number[] },
  ]),
)
for (const subject of subjects) {
  for (let i = 0; i < 5; i++) await closePerAsk(subject, SMALL)
}
// Rounds alternate the sizes and the subjects, so load that comes and goes
// weighs on both sides of a round's ratio.
for (let round = 0; round < ROUNDS; round++) {
  for (const subject of subjects) {
    const small: number[] = []
    for (let i = 0; i < SMALL_REPEATS; i++) small.push(await closePerAsk(subject, SMALL))
    const large = await closePerAsk(subject, LARGE)
    const runs = perAsk.get(subject.name)!
    runs.small.push(median(small))
    runs.large.push(large)
    runs.ratios.push(large / median(small))
  }
}

const micros = (ms: number) => `${(ms * 1000).toFixed(2)} µs`
console.log('## close()\n')
console.log(
  `Per pending ask, from \`close()\` until it resolves; ${ROUNDS} rounds, each the median of ${SMALL_REPEATS} closes of ${SMALL.toLocaleString('en')} and one of ${LARGE.toLocaleString('en')}; the ratio is the median of the rounds' own.\n`,
)
console.log(
  table(
    [
      'seam',
      `${SMALL.toLocaleString('en')} pending`,
      `${LARGE.toLocaleString('en')} pending`,
      'ratio',
      'goal',
    ],
    subjects.map(({ name }) => {
      const runs = perAsk.get(name)!
      const ratio = median(runs.ratios)
      return [
        name,
        micros(median(runs.small)),
        `${micros(median(runs.large))} (${(median(runs.large) * LARGE).toFixed(0)} ms in all)`,
        `${ratio.toFixed(2)}× (rounds: ${runs.ratios.map((each) => each.toFixed(2)).join(', ')})`,
        name === 'askseam' ? goal(ratio, 1.2) : '',
      ]
    }),
  ),
)
