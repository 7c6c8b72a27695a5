/**
 * The heap a pending ask holds, against XState's own floor measured the same
 * way in the same process (DESIGN §9: at most 1.5×). A pending ask, as the
 * seam builds it (DESIGN §6), is one root `askMachine` actor with one
 * `presentationMachine` child while its provider shows it; the floor is the
 * least XState holds for that shape: a root actor of a tiny machine invoking
 * one tiny child machine (and, for an ask with a deadline, one pending delayed
 * event too). Below the ratios, what a pending ask's heap is made of.
 *
 *   npm run bench -- heap
 *
 * Environment: BENCH_PENDING (default 100000) asks or actors per measurement.
 */
import { createActor, fromPromise, setup } from 'xstate'
import { askMachine } from '../src/machines/index.js'
import type { AskInput } from '../src/machines/index.js'
import { createMemoryStore, createUserQuestions, validateRequest } from '../src/protocol/index.js'
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from '../src/protocol/index.js'
import { createPlainSeam } from './plain-seam.js'
import { goal, heapPer, table } from './measure.js'

const PENDING = Number(process.env.BENCH_PENDING ?? 100_000)
const HOUR = 3_600_000
const GOAL = 1.5

const questions = [
  {
    id: 'region',
    question: 'Which region?',
    options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
  },
  { id: 'notes', question: 'Anything else?' },
]
// One signal for every ask, as a tool runtime hands every call of a run.
const signal = new AbortController().signal
const requests = {
  'no deadline': { questions, signal },
  '1 h deadline': { questions, signal, timeoutMs: HOUR },
} satisfies Record<string, AskUserQuestionRequest>
type Variant = keyof typeof requests

// A provider that never answers holds one promise for all asks: what is
// measured is the seam's side of a pending ask, not the UI's.
const never = new Promise<AskUserQuestionAnswer>(() => {})
const provider = { ask: () => never }

interface SeamLike {
  registerProvider(provider: { ask(): Promise<AskUserQuestionAnswer> }): () => void
  ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>
  pending?(): { state: string }[]
  close(): Promise<void>
}

/** Heap per pending ask of a fresh seam, after every ask has been presented. */
async function seamHeap(make: () => SeamLike, variant: Variant, count = PENDING) {
  const seam = make()
  seam.registerProvider(provider)
  const { bytes, made } = await heapPer(count, () => seam.ask(requests[variant]))
  const shown = seam.pending?.().filter((ask) => ask.state === 'presenting').length
  if (shown !== undefined && shown !== count) {
    throw new Error(`bench: ${shown} of ${count} asks were presented when the heap was read`)
  }
  for (const promise of made) promise.catch(() => undefined)
  await seam.close()
  return bytes
}

/** Heap per started actor, measured as the asks are; stops them afterwards. */
async function actorHeap(start: () => { stop(): void }) {
  const { bytes, made } = await heapPer(PENDING, start)
  for (const actor of made) actor.stop()
  return bytes
}

// XState's floor: tiny machines, built the ordinary way.
const tinyChild = setup({}).createMachine({ initial: 'idle', states: { idle: {} } })
const floorMachines = {
  root: setup({}).createMachine({ initial: 'idle', states: { idle: {} } }),
  'root + child machine': setup({ actors: { child: tinyChild } }).createMachine({
    initial: 'waiting',
    states: { waiting: { invoke: { src: 'child' } } },
  }),
  'root + child machine + delayed event': setup({
    actors: { child: tinyChild },
    delays: { deadline: HOUR },
  }).createMachine({
    initial: 'waiting',
    states: { waiting: { invoke: { src: 'child' }, after: { deadline: 'over' } }, over: {} },
  }),
  'root + unsettled promise (DESIGN §9)': setup({
    actors: { wait: fromPromise(() => never) },
  }).createMachine({ initial: 'waiting', states: { waiting: { invoke: { src: 'wait' } } } }),
}
type Floor = keyof typeof floorMachines
const floorFor: Record<Variant, Floor> = {
  'no deadline': 'root + child machine',
  '1 h deadline': 'root + child machine + delayed event',
}

// Warm-up: every path runs (and is compiled) before anything is read.
for (const variant of Object.keys(requests) as Variant[]) {
  await seamHeap(createUserQuestions, variant, 2_000)
  await seamHeap(createPlainSeam, variant, 2_000)
}

const floor = {} as Record<Floor, number>
for (const name of Object.keys(floorMachines) as Floor[]) {
  floor[name] = await actorHeap(() => createActor(floorMachines[name]).start())
}
const seam = {} as Record<Variant, number>
const plain = {} as Record<Variant, number>
for (const variant of Object.keys(requests) as Variant[]) {
  seam[variant] = await seamHeap(createUserQuestions, variant)
  plain[variant] = await seamHeap(createPlainSeam, variant)
}

// The parts, each measured the same way. The bare machines share one id and
// one question list: what they hold is XState's and the statecharts' own.
const { questions: validated } = validateRequest({ questions })
const bareInput = (extra: Partial<AskInput>): AskInput => ({
  askId: 'bench',
  questions: validated,
  startedAt: Date.now(),
  waitForProviderMs: 0,
  providerGraceMs: 0,
  ...extra,
})
// Shown by a provider on another seam: the ask's own actor, with no child.
const askAlone = await actorHeap(() =>
  createActor(askMachine, { input: bareInput({ providerElsewhere: true }) }).start(),
)
// Shown here: the ask's actor and its presentation child, the machines the seam runs.
const askPresented = await actorHeap(() =>
  createActor(askMachine, { input: bareInput({ providerHere: true }) }).start(),
)
const store = createMemoryStore()
const record = await heapPer(PENDING, (index) => {
  void store.admit({
    askId: `bench-${String(index).padStart(30, '0')}`,
    questions: validated,
    ownerSeamId: 'bench',
    startedAt: Date.now(),
  })
})
const request = await heapPer(PENDING, () => validateRequest(requests['no deadline']))
// Node makes a controller's signal when it is first read, as the provider's request does.
const controller = await heapPer(PENDING, () => {
  const made = new AbortController()
  void made.signal
  return made
})
const rest = seam['no deadline'] - askPresented - record.bytes - request.bytes - controller.bytes

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`
const count = PENDING.toLocaleString('en')
console.log(`## Heap per pending ask\n`)
console.log(
  `${count} asks presented to a provider that never answers, every caller on one signal; XState's floor is ${count} actors measured the same way in the same process.\n`,
)
console.log(
  table(
    ['pending ask', 'askseam', 'plain promise', "XState's floor", 'ratio', 'goal'],
    (Object.keys(requests) as Variant[]).map((variant) => {
      const ratio = seam[variant] / floor[floorFor[variant]]
      return [
        variant,
        kb(seam[variant]),
        kb(plain[variant]),
        `${kb(floor[floorFor[variant]])} (${floorFor[variant]})`,
        `${ratio.toFixed(2)}×`,
        goal(ratio, GOAL),
      ]
    }),
  ),
)
console.log('\nXState alone, each a tiny machine started as a root actor:\n')
console.log(
  table(
    ['actor', 'heap'],
    (Object.keys(floor) as Floor[]).map((name) => [name, kb(floor[name])]),
  ),
)
console.log('\nWhat a pending ask without a deadline holds:\n')
const part = (name: string, bytes: number, beside: string) => [
  name,
  kb(bytes),
  `${((bytes / seam['no deadline']) * 100).toFixed(0)}%`,
  beside,
]
console.log(
  table(
    ['part', 'heap', 'share', 'against'],
    [
      part(
        '`askMachine` root actor, bare (the statechart and its context)',
        askAlone,
        `tiny root ${kb(floor.root)}: +${kb(askAlone - floor.root)}`,
      ),
      part(
        '`presentationMachine` child, bare',
        askPresented - askAlone,
        `tiny child ${kb(floor['root + child machine'] - floor.root)}: +${kb(askPresented - askAlone - (floor['root + child machine'] - floor.root))}`,
      ),
      part('the memory store’s record', record.bytes, ''),
      part('the validated request', request.bytes, ''),
      part('the provider’s `AbortController` and signal', controller.bytes, ''),
      part(
        'the rest: ids, the ask’s handle and caller, the provider’s request and settlement, the in-flight calls’ promises, map entries',
        rest,
        `plain seam’s whole ask ${kb(plain['no deadline'])}`,
      ),
      part('a pending ask', seam['no deadline'], ''),
    ],
  ),
)
console.log(
  `\nA deadline adds ${kb(seam['1 h deadline'] - seam['no deadline'])} to an ask; to XState's floor, ${kb(floor['root + child machine + delayed event'] - floor['root + child machine'])}.`,
)
