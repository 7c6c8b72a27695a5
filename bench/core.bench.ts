import { createActor, fromPromise, setup } from 'xstate'
import { createUserQuestions } from '../src/protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  ProviderRequest,
} from '../src/protocol/index.js'
import { createPlainSeam } from './plain-seam.js'
import { gc, median, percentile, table } from './measure.js'

/**
 * The core seam against the plain-promise floor, in one process and one run:
 * round trips per second, heap per pending ask at 100,000 pending, and the
 * answer latency with 1 and with 100,000 asks pending.
 */

interface Subject {
  name: string
  make(): {
    registerProvider(provider: {
      ask(request: ProviderRequest): Promise<AskUserQuestionAnswer>
    }): () => void
    ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>
  }
}

const subjects: Subject[] = [
  { name: 'askseam', make: () => createUserQuestions() },
  { name: 'plain promise', make: () => createPlainSeam() },
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

/** A provider that holds every ask except probes, which it answers at once. */
function holdingProvider() {
  const held: (() => void)[] = []
  return {
    held,
    provider: {
      ask(request: ProviderRequest): Promise<AskUserQuestionAnswer> {
        if (request.questions[0]?.id === 'probe') {
          return Promise.resolve({ answers: [{ id: 'probe', selected: [] }] })
        }
        return new Promise((resolve) => held.push(() => resolve(answer)))
      },
    },
  }
}

/**
 * The heap each pending ask holds once it is presented: measured after the
 * microtasks of the burst have run, since a pending ask is one waiting for a
 * human, not one half-way through its admission.
 */
async function heapPerPendingAsk(subject: Subject, timeoutMs?: number): Promise<number> {
  const seam = subject.make()
  const { provider } = holdingProvider()
  seam.registerProvider(provider)
  const signal = new AbortController().signal
  gc()
  const before = process.memoryUsage().heapUsed
  const promises: Promise<unknown>[] = []
  const request = timeoutMs === undefined ? { questions, signal } : { questions, signal, timeoutMs }
  for (let i = 0; i < PENDING; i++) promises.push(seam.ask(request))
  await new Promise((resolve) => setImmediate(resolve))
  gc()
  const after = process.memoryUsage().heapUsed
  const bytes = (after - before) / PENDING
  await (seam as { close?: () => Promise<void> }).close?.()
  promises.forEach((promise) => promise.catch(() => undefined))
  return bytes
}

async function probeLatency(subject: Subject, pending: number): Promise<number> {
  const seam = subject.make()
  const { provider } = holdingProvider()
  seam.registerProvider(provider)
  const signal = new AbortController().signal
  const fillers: Promise<unknown>[] = []
  for (let i = 0; i < pending; i++)
    fillers.push(seam.ask({ questions, signal, timeoutMs: 3_600_000 }))
  fillers.forEach((promise) => promise.catch(() => undefined))
  const probe = [{ id: 'probe', question: 'Still fast?' }]
  const samples: number[] = []
  for (let i = 0; i < LATENCY_SAMPLES + 200; i++) {
    const started = performance.now()
    await seam.ask({ questions: probe, signal, timeoutMs: 3_600_000 })
    if (i >= 200) samples.push(performance.now() - started)
  }
  await (seam as { close?: () => Promise<void> }).close?.()
  gc()
  return percentile(samples, 50)
}

/**
 * What XState itself costs per live actor, for reading the heap row: a bare
 * root actor, one that invokes a single pending promise — the least an ask
 * that is "its own root actor" with "an invoked promise actor" can hold — and
 * one waiting on a delayed event, as an ask's deadline does.
 */
function xstateFloor(): { root: number; rootWithPromise: number; rootWithDelay: number } {
  const bare = setup({}).createMachine({ initial: 'idle', states: { idle: {} } })
  const delayed = setup({ delays: { deadline: 3_600_000 } }).createMachine({
    initial: 'waiting',
    states: { waiting: { after: { deadline: 'over' } }, over: {} },
  })
  const invoking = setup({
    actors: { wait: fromPromise(() => new Promise<never>(() => {})) },
  }).createMachine({
    initial: 'waiting',
    states: { waiting: { invoke: { src: 'wait' } } },
  })
  const measure = (make: () => { stop(): void }) => {
    const keep: { stop(): void }[] = []
    gc()
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < PENDING; i++) keep.push(make())
    gc()
    const bytes = (process.memoryUsage().heapUsed - before) / PENDING
    for (const actor of keep) actor.stop()
    keep.length = 0
    return bytes
  }
  return {
    root: measure(() => createActor(bare).start()),
    rootWithPromise: measure(() => createActor(invoking).start()),
    rootWithDelay: measure(() => createActor(delayed).start()),
  }
}

// The round trips alternate between the subjects, and the ratio is the median
// of each round's own: load that comes and goes on a shared machine then
// weighs on both sides of a ratio, not on whichever subject ran through it.
const ROUNDS = 5
const rates = new Map(subjects.map((subject) => [subject.name, [] as number[]]))
const roundRatios: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  const seamRate = await roundTripsPerSecond(subjects[0]!)
  const floorRate = await roundTripsPerSecond(subjects[1]!)
  rates.get(subjects[0]!.name)!.push(seamRate)
  rates.get(subjects[1]!.name)!.push(floorRate)
  roundRatios.push(floorRate / seamRate)
}
const results: Record<string, { rate: number; heap: number; p50One: number; p50Many: number }> = {}
for (const subject of subjects) {
  results[subject.name] = {
    rate: median(rates.get(subject.name)!),
    heap: await heapPerPendingAsk(subject, 3_600_000),
    p50One: await probeLatency(subject, 1),
    p50Many: await probeLatency(subject, PENDING),
  }
}

const plainWithoutTimer = await heapPerPendingAsk(subjects[1]!)
const floorOfXState = xstateFloor()
const seam = results['askseam']!
const floor = results['plain promise']!
// An ask as DESIGN §6 builds it: its own root actor invoking the provider's
// call, one delayed event for its deadline, and the checks and bookkeeping
// any seam needs (what the plain seam holds, less the timer XState replaces).
const leastOfParts =
  floorOfXState.rootWithPromise +
  floorOfXState.rootWithDelay -
  floorOfXState.root +
  plainWithoutTimer
const micros = (ms: number) => `${(ms * 1000).toFixed(1)} µs`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`
console.log('## Core seam\n')
console.log(
  table(
    ['measure', 'askseam', 'plain promise', 'ratio', 'goal'],
    [
      [
        'round trips per second',
        seam.rate.toFixed(0),
        floor.rate.toFixed(0),
        `${median(roundRatios).toFixed(1)}× slower (rounds: ${roundRatios.map((ratio) => ratio.toFixed(1)).join(', ')})`,
        '≤ 10× slower',
      ],
      [
        `heap per pending ask (${PENDING.toLocaleString('en')} pending)`,
        `${kb(seam.heap)}`,
        `${kb(floor.heap)}`,
        `${(seam.heap / floorOfXState.rootWithPromise).toFixed(2)}× XState's floor`,
        "≤ 1.3× XState's floor",
      ],
      [
        "XState's floor: a root actor / one invoking an unsettled promise / one with a pending delayed event",
        `${kb(floorOfXState.root)} / ${kb(floorOfXState.rootWithPromise)} / ${kb(floorOfXState.rootWithDelay)}`,
        '',
        '',
        '',
      ],
      [
        "what its parts cost apart: XState's floor + its pending delayed event + the plain seam's ask without a timer",
        kb(leastOfParts),
        kb(plainWithoutTimer),
        `askseam ${(seam.heap / leastOfParts).toFixed(2)}× that`,
        '',
      ],
      ['answer latency p50, 1 pending', micros(seam.p50One), micros(floor.p50One), '', ''],
      [
        `answer latency p50, ${PENDING.toLocaleString('en')} pending`,
        micros(seam.p50Many),
        micros(floor.p50Many),
        `askseam ${(seam.p50Many / seam.p50One).toFixed(2)}× its 1-pending p50`,
        '≤ 1.2×',
      ],
    ],
  ),
)
