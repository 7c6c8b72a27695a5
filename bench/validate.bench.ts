/**
 * How validateAnswer scales with the size of an answer: one multi-select
 * question with N options, every one selected (the shape a hostile or
 * careless client can send in one frame). Prints the time per selected label
 * at each size and its ratio to the smallest; a linear check keeps the ratio
 * near 1, a quadratic one grows it with N (issue 10: 30,000 options took
 * 1.8 s of blocked event loop; the quadratic check measured 34x per label at
 * 30,000 against 1,000 here). Each label costs a few random memory reads (its
 * hash, the table's bucket and entry), so once the table outgrows the CPU's
 * caches the time per label rises by a small constant factor; that step is the
 * memory hierarchy, not the algorithm.
 *
 *   npm run bench -- validate
 *
 * Environment: BENCH_SIZES (default "1000,10000,30000").
 */
import { validateAnswer, validateRequest } from '../src/protocol/index.js'
import { median, table } from './measure.js'

const sizes = (process.env.BENCH_SIZES ?? '1000,10000,30000').split(',').map(Number)

function case_(size: number) {
  const labels = Array.from({ length: size }, (_, index) => `option ${index}`)
  const { questions } = validateRequest({
    questions: [
      {
        id: 'all',
        question: 'Which apply?',
        multiSelect: true,
        options: labels.map((label) => ({ label })),
      },
    ],
  })
  // Reversed, so a check that scans in order cannot stop early.
  const answer = { answers: [{ id: 'all', selected: [...labels].reverse() }] }
  return { questions, answer }
}

/** One sample: nanoseconds per selected label over enough repetitions to cover ~100k labels. */
function sample({ questions, answer }: ReturnType<typeof case_>, size: number): number {
  const repeats = Math.max(1, Math.round(100_000 / size))
  const start = process.hrtime.bigint()
  for (let repeat = 0; repeat < repeats; repeat++) validateAnswer(questions, answer)
  return Number(process.hrtime.bigint() - start) / repeats / size
}

// The sizes take turns, round after round, and each keeps its fastest
// sample: on a shared machine the other processes only ever add time, so the
// minimum is the estimate least disturbed by them (the median is printed too).
const cases = sizes.map((size) => ({ size, data: case_(size), samples: [] as number[] }))
for (const { size, data } of cases) sample(data, size) // warm-up: let the JIT settle first
for (let round = 0; round < 25; round++) {
  for (const entry of cases) entry.samples.push(sample(entry.data, entry.size))
}
const best = cases.map(({ size, samples }) => ({
  size,
  min: Math.min(...samples),
  median: median(samples),
}))
const base = best[0]?.min ?? Number.NaN
console.log('## Validating a large answer\n')
console.log(
  'One multi-select question with N options, every one selected: time per selected label, and its ratio to the smallest N (a linear check stays near 1).\n',
)
console.log(
  table(
    [
      'options, all selected',
      'ns per label (min)',
      'ns per label (median)',
      'ratio to smallest (min)',
    ],
    best.map(({ size, min, median: middle }) => [
      size.toLocaleString('en'),
      min.toFixed(1),
      middle.toFixed(1),
      (min / base).toFixed(2),
    ]),
  ),
)
