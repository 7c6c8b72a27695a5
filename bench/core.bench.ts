import { createUserQuestions } from '../src/protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  ProviderRequest,
} from '../src/protocol/index.js'
import { openTelemetry } from '../src/otel/index.js'
import { createPlainSeam } from './plain-seam.js'
import { createXStateFloorSeam } from './xstate-floor-seam.js'
import { gc, goal, median, percentile, table, turn } from './measure.js'

/**
 * The core seam against the plain-promise floor (bench/plain-seam.ts), in one
 * process and one run: the round trip of one ask through a seam on the memory
 * store with a provider that answers at once (DESIGN §9: at most 8× the
 * floor's), and the answer latency with 1 and with 100,000 asks pending (at
 * most 1.2×). The heap per pending ask is bench/heap.bench.ts; `close()`,
 * bench/close.bench.ts.
 *
 *   npm run bench -- core
 *
 * Environment: BENCH_PENDING (default 100000), BENCH_ROUND_TRIPS (default
 * 20000 per round).
 */

interface Subject {
  name: string
  make(): {
    registerProvider(provider: {
      ask(request: ProviderRequest): Promise<AskUserQuestionAnswer>
    }): () => void
    ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>
    close(): Promise<void>
  }
}

const subjects: Subject[] = [
  { name: 'askseam', make: () => createUserQuestions() },
  { name: 'plain promise', make: () => createPlainSeam() },
]

/** The same checks with the ask's lifecycle in two tiny machines: what XState alone adds. */
const statechartFloor: Subject = { name: 'XState floor', make: () => createXStateFloorSeam() }

/**
 * The cost of the telemetry hooks on the hot path (DESIGN §13), against the
 * same seam without them: hooks that do nothing, and `openTelemetry()` on the
 * API's own no-op providers (installed, no SDK registered).
 */
const observed: Subject[] = [
  {
    name: 'no-op telemetry',
    make: () =>
      createUserQuestions({
        telemetry: { askStarted: () => undefined, presentationStarted: () => undefined },
      }),
  },
  {
    name: 'openTelemetry(), no SDK',
    make: () => createUserQuestions({ telemetry: openTelemetry() }),
  },
]

const questions = [
  {
    id: 'region',
    question: 'Which region?',
    options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
  },
  { id: 'notes', question: 'Anything else?' },
]
const answer: AskUserQuestionAnswer = {
  answers: [
    { id: 'region', selected: ['eu-west-1'] },
    { id: 'notes', selected: [], custom: 'ship it' },
  ],
}
const PENDING = Number(process.env.BENCH_PENDING ?? 100_000)
const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 20_000)
const LATENCY_SAMPLES = 2_000

async function roundTripsPerSecond(subject: Subject): Promise<number> {
  const seam = subject.make()
  seam.registerProvider({ ask: async () => answer })
  const controller = new AbortController()
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) {
      await seam.ask({ questions, signal: controller.signal, timeoutMs: 60_000 })
    }
  }
  await run(2_000)
  const started = performance.now()
  await run(ROUND_TRIPS)
  return ROUND_TRIPS / ((performance.now() - started) / 1000)
}

// A provider that never answers holds one promise for every ask; probes it answers at once.
const never = new Promise<AskUserQuestionAnswer>(() => {})
const probeAnswer: AskUserQuestionAnswer = { answers: [{ id: 'probe', selected: [] }] }
const holdingProvider = {
  ask(request: ProviderRequest): Promise<AskUserQuestionAnswer> {
    return request.questions[0]?.id === 'probe' ? Promise.resolve(probeAnswer) : never
  },
}

/** An answer latency p50 (ms), right after the burst of pending asks and after a full collection. */
type Latency = { burst: number; settled: number }

/**
 * The answer latency (p50) with `pending` asks held, twice: right after the
 * burst that made them, and again after one full collection. Right after a
 * burst of this size the answers are slower by an amount that moves from run
 * to run and that a full collection removes: V8's state after growing the
 * heap that fast, not the seam's work. A seam that has held its asks a while
 * has been through full collections, as the second probe has.
 */
async function probeLatency(subject: Subject, pending: number): Promise<Latency> {
  const seam = subject.make()
  seam.registerProvider(holdingProvider)
  const signal = new AbortController().signal
  const fillers: Promise<unknown>[] = []
  for (let i = 0; i < pending; i++)
    fillers.push(seam.ask({ questions, signal, timeoutMs: 3_600_000 }))
  fillers.forEach((promise) => promise.catch(() => undefined))
  await turn()
  const probe = [{ id: 'probe', question: 'Still fast?' }]
  const p50 = async () => {
    const samples: number[] = []
    for (let i = 0; i < LATENCY_SAMPLES + 200; i++) {
      const started = performance.now()
      await seam.ask({ questions: probe, signal, timeoutMs: 3_600_000 })
      if (i >= 200) samples.push(performance.now() - started)
    }
    return percentile(samples, 50)
  }
  const burst = await p50()
  gc()
  const settled = await p50()
  await seam.close()
  gc()
  return { burst, settled }
}

// The round trips alternate between the subjects, and the ratio is the median
// of each round's own: load that comes and goes on a shared machine then
// weighs on both sides of a ratio, not on whichever subject ran through it.
const ROUNDS = 5
const rates = new Map(subjects.map((subject) => [subject.name, [] as number[]]))
const roundRatios: number[] = []
const statechartRates: number[] = []
const overStatechart: number[] = []
const statechartOverPlain: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  const seamRate = await roundTripsPerSecond(subjects[0]!)
  const floorRate = await roundTripsPerSecond(subjects[1]!)
  const statechartRate = await roundTripsPerSecond(statechartFloor)
  rates.get(subjects[0]!.name)!.push(seamRate)
  rates.get(subjects[1]!.name)!.push(floorRate)
  statechartRates.push(statechartRate)
  roundRatios.push(floorRate / seamRate)
  overStatechart.push(statechartRate / seamRate)
  statechartOverPlain.push(floorRate / statechartRate)
}
// Each telemetry subject beside a run of the seam without it, back to back, the
// order flipped every round: the two sides of each ratio share the load of their moment.
const TELEMETRY_ROUNDS = 2 * ROUNDS
const telemetryRatios = new Map(observed.map((subject) => [subject.name, [] as number[]]))
for (let round = 0; round < TELEMETRY_ROUNDS; round++) {
  for (const subject of observed) {
    const pair = round % 2 === 0 ? [subjects[0]!, subject] : [subject, subjects[0]!]
    const [first, second] = [
      await roundTripsPerSecond(pair[0]!),
      await roundTripsPerSecond(pair[1]!),
    ]
    const [without, withHooks] = round % 2 === 0 ? [first, second] : [second, first]
    telemetryRatios.get(subject.name)!.push(without / withHooks)
  }
}
const latency = new Map<string, { one: Latency; many: Latency }>()
for (const subject of subjects) {
  latency.set(subject.name, {
    one: await probeLatency(subject, 1),
    many: await probeLatency(subject, PENDING),
  })
}

const seam = { rate: median(rates.get('askseam')!), ...latency.get('askseam')! }
const floor = { rate: median(rates.get('plain promise')!), ...latency.get('plain promise')! }
const roundTrip = median(roundRatios)
const micros = (ms: number) => `${(ms * 1000).toFixed(1)} µs`
const pending = PENDING.toLocaleString('en')
console.log('## Core seam\n')
console.log(
  `Memory store, every ask with a signal and a deadline; the provider answers at once. Round trips: ${ROUNDS} alternating rounds of ${ROUND_TRIPS.toLocaleString('en')} per subject, each after 2,000 warm-up; the ratio is the median of the rounds' own.\n`,
)
console.log(
  table(
    ['measure', 'askseam', 'plain promise', 'ratio', 'goal'],
    [
      [
        'round trip of one ask',
        `${micros(1000 / seam.rate)} (${seam.rate.toFixed(0)}/s)`,
        `${micros(1000 / floor.rate)} (${floor.rate.toFixed(0)}/s)`,
        `${roundTrip.toFixed(1)}× the plain seam's (rounds: ${roundRatios.map((ratio) => ratio.toFixed(1)).join(', ')})`,
        goal(roundTrip, 8),
      ],
      [
        'answer latency p50, 1 pending',
        micros(seam.one.settled),
        micros(floor.one.settled),
        '',
        '',
      ],
      ...(['burst', 'settled'] as const).map((when) => {
        const crowded = seam.many[when] / seam.one[when]
        const plain = floor.many[when] / floor.one[when]
        return [
          `answer latency p50, ${pending} pending, ${when === 'burst' ? 'right after the burst that made them' : 'after a full collection'}`,
          micros(seam.many[when]),
          micros(floor.many[when]),
          `askseam ${crowded.toFixed(2)}× its 1-pending p50 (plain ${plain.toFixed(2)}×)`,
          goal(crowded, 1.2),
        ]
      }),
    ],
  ),
)
console.log(
  `\nThe two ${pending}-pending rows probe the same seam. Right after the burst that made its asks, the heap is as V8 left it after growing by a gigabyte in a few seconds; after one full collection, it is as a seam that has held its asks a while has it. The seam's work per answer is the same in both.`,
)
const statechart = median(statechartRates)
const rounds = (ratios: number[]) => ratios.map((ratio) => ratio.toFixed(1)).join(', ')
console.log(
  `\nWhat the statecharts alone cost on the same round trip, in the same rounds: the plain seam's checks with the ask's lifecycle in two tiny machines (bench/xstate-floor-seam.ts: a root actor that admits and arms its deadline, a child that calls the provider and commits; three effects reporting back as events, as the seam's do).\n`,
)
console.log(
  table(
    ['subject', 'round trip', 'ratio'],
    [
      [
        'XState floor',
        `${micros(1000 / statechart)} (${statechart.toFixed(0)}/s)`,
        `${median(statechartOverPlain).toFixed(1)}× the plain seam's (rounds: ${rounds(statechartOverPlain)})`,
      ],
      [
        'askseam',
        micros(1000 / seam.rate),
        `${median(overStatechart).toFixed(1)}× the XState floor's (rounds: ${rounds(overStatechart)})`,
      ],
    ],
  ),
)
console.log(
  `\nThe telemetry hooks on the same round trip: ${TELEMETRY_ROUNDS} rounds, each running the seam with them and without them back to back (the order flipped every round); the ratio is the time with over the time without, the median of the rounds' own.\n`,
)
console.log(
  table(
    ['telemetry', 'ratio to askseam without', 'rounds'],
    observed.map(({ name }) => {
      const ratios = telemetryRatios.get(name)!
      return [
        name,
        `${median(ratios).toFixed(2)}×`,
        ratios.map((ratio) => ratio.toFixed(2)).join(', '),
      ]
    }),
  ),
)
