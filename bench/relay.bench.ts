/**
 * Relay round trip over loopback WebSocket: ask → `question/requested` →
 * the client answers → the caller resolves. Measured with one connected
 * client, and with 1,000 (999 observers in a separate process, which read
 * every frame like browser tabs would, plus the one that answers), next to
 * the direct seam round trip (a provider that answers at once) in the same
 * run. Prints a markdown table.
 *
 *   npm run bench -- relay
 *
 * Environment: BENCH_ASKS (default 2000) asks per scenario after 200 warm-up
 * asks; the crowd and the paced single client split them into BENCH_ROUNDS
 * (default 3) alternating rounds.
 */
import { fork } from 'node:child_process'
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebSocket } from 'ws'
import { createUserQuestions, validateAnswer } from '../src/protocol/index.js'
import type { AskUserQuestionAnswer, AskUserQuestionItem } from '../src/protocol/index.js'
import { startWebConsole } from '../src/providers/web/index.js'
import { goal, median } from './measure.js'

const ASKS = Number(process.env.BENCH_ASKS ?? 2000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const WARMUP = 200
const OBSERVERS = 999

const questions: AskUserQuestionItem[] = [
  {
    id: 'region',
    header: 'Target',
    question: 'Which region should the service be deployed to?',
    options: [
      { label: 'eu-west-1', description: 'Next to the database replica' },
      { label: 'us-east-1', description: 'Closest to most users' },
    ],
  },
  {
    id: 'checks',
    question: 'Which checks must pass?',
    multiSelect: true,
    options: [{ label: 'Smoke tests' }, { label: 'Load test' }],
  },
]
const answer: AskUserQuestionAnswer = {
  answers: [
    { id: 'region', selected: ['eu-west-1'] },
    { id: 'checks', selected: ['Smoke tests'] },
  ],
}

interface Summary {
  samples: number[]
  p50: number
  p95: number
  p99: number
  mean: number
  perSecond: number
}

function summarise(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  const total = samples.reduce((sum, value) => sum + value, 0)
  return {
    samples,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    mean: total / samples.length,
    perSecond: (samples.length / total) * 1000,
  }
}

/** Times `count` asks; `settle` (untimed) runs after each one, e.g. to let a fan-out finish. */
async function measure(
  ask: () => Promise<unknown>,
  settle: () => Promise<void> = async () => undefined,
  count = ASKS,
): Promise<Summary> {
  for (let i = 0; i < WARMUP; i++) {
    await ask()
    await settle()
  }
  globalThis.gc?.()
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await ask()
    samples.push(performance.now() - start)
    await settle()
  }
  return summarise(samples)
}

async function directSeam(): Promise<Summary> {
  const seam = createUserQuestions()
  seam.registerProvider({ ask: async (request) => validateAnswer(request.questions, answer) })
  try {
    return await measure(() => seam.ask({ questions }))
  } finally {
    await seam.close()
  }
}

/**
 * Opens `count` read-only clients in a child process (like browser tabs, each
 * parses every frame). Resolves once all are connected; `drained(rpcId)`
 * resolves when every one of them has read that ask's `question/resolved`.
 */
async function startObservers(wsUrl: string, count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'askseam-bench-'))
  const script = join(dir, 'observers.cjs')
  writeFileSync(
    script,
    `const { WebSocket } = require(${JSON.stringify(require.resolve('ws'))})
let open = 0, frames = 0
const resolved = new Map()
const sockets = []
for (let i = 0; i < ${count}; i++) {
  const ws = new WebSocket(process.argv[2])
  ws.on('open', () => { if (++open === ${count}) process.send('ready') })
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data))
    frames++
    if (frame.type !== 'question/resolved') return
    const seen = (resolved.get(frame.rpcId) ?? 0) + 1
    if (seen < ${count}) { resolved.set(frame.rpcId, seen); return }
    resolved.delete(frame.rpcId)
    process.send('drained:' + frame.rpcId)
  })
  sockets.push(ws)
}
process.on('message', () => { process.send('frames:' + frames); sockets.forEach((ws) => ws.terminate()); process.exit(0) })
`,
  )
  const child = fork(script, [wsUrl], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve())
    child.once('exit', (code) => reject(new Error(`observers exited with ${code}`)))
  })
  const waiting = new Map<string, () => void>()
  const done = new Set<string>()
  child.on('message', (message) => {
    const [kind, rpcId = ''] = String(message).split(/:(.*)/s)
    if (kind !== 'drained') return
    const resolve = waiting.get(rpcId)
    if (resolve === undefined) done.add(rpcId)
    else {
      waiting.delete(rpcId)
      resolve()
    }
  })
  return {
    drained(rpcId: string): Promise<void> {
      if (done.delete(rpcId)) return Promise.resolve()
      return new Promise((resolve) => waiting.set(rpcId, resolve))
    },
    async stop(): Promise<number> {
      const reply = new Promise<string>((resolve) =>
        child.on('message', (m) => {
          if (String(m).startsWith('frames:')) resolve(String(m))
        }),
      )
      child.send('stop')
      const frames = Number((await reply).split(':')[1])
      rmSync(dir, { recursive: true, force: true })
      return frames
    },
  }
}

const require = (await import('node:module')).createRequire(import.meta.url)

/**
 * One relay scenario. With observers, each ask starts once all of them have
 * read how the previous one ended (asks never overlap, as a person answers
 * one at a time). Without, asks run back to back, or with `idleMs` between
 * them to match the crowd run's pace: a process that idles between asks
 * answers the next one more slowly (cold caches, scheduler wake-up), so the
 * fair comparison for the crowd run is the paced single-client run.
 */
async function relayRoundTrip(
  observers: number,
  idleMs = 0,
  asks = ASKS,
): Promise<Summary & { delivered: number; fanOut: Summary | undefined }> {
  const seam = createUserQuestions()
  // A benchmark client answers thousands of asks a second; lift the per-client rate limit.
  const web = await startWebConsole({
    seam,
    limits: {
      maxFramesPerWindow: Number.MAX_SAFE_INTEGER,
      ...(process.env.BENCH_FRAMES_PER_TURN === undefined
        ? {}
        : { framesPerTurn: Number(process.env.BENCH_FRAMES_PER_TURN) }),
    },
  })
  const crowd = observers > 0 ? await startObservers(web.wsUrl, observers) : undefined
  const client = new WebSocket(web.wsUrl)
  await new Promise<void>((resolve) => client.once('open', () => resolve()))
  client.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { type: string; rpcId: string }
    if (frame.type === 'question/requested') {
      client.send(
        JSON.stringify({
          type: 'question/respond',
          rpcId: frame.rpcId,
          result: { ok: true, value: answer },
        }),
      )
    }
  })
  let last = ''
  let askedAt = 0
  const fanOutTimes: number[] = []
  const ask = () => {
    askedAt = performance.now()
    const pending = seam.ask({ questions })
    last = seam.pending().at(-1)?.askId ?? ''
    return pending
  }
  // Asks are not overlapped: each starts once every client has heard how the last one ended.
  const settle = async () => {
    if (crowd === undefined) {
      if (idleMs > 0) await new Promise((resolve) => setTimeout(resolve, idleMs))
      return
    }
    await crowd.drained(last)
    fanOutTimes.push(performance.now() - askedAt)
  }
  try {
    const summary = await measure(ask, settle, asks)
    const delivered = crowd === undefined ? 0 : await crowd.stop()
    const fanOut = crowd === undefined ? undefined : summarise(fanOutTimes.slice(WARMUP))
    return { ...summary, delivered, fanOut }
  } finally {
    client.terminate()
    await web.close()
  }
}

const ms = (value: number) => `${value.toFixed(3)} ms`
const direct = await directSeam()
const single = await relayRoundTrip(0)
// The crowd and the single client at its pace alternate, and the goal's ratio
// is the median of each round's own: a neighbour's load that comes and goes on
// a shared machine then weighs on both sides of a round's ratio.
const perRound = Math.ceil(ASKS / ROUNDS)
const crowdRounds: Awaited<ReturnType<typeof relayRoundTrip>>[] = []
const pacedRounds: Summary[] = []
const roundRatios: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  const crowdRound = await relayRoundTrip(OBSERVERS, 0, perRound)
  const pacedRound = await relayRoundTrip(0, Math.round(crowdRound.fanOut?.p50 ?? 20), perRound)
  crowdRounds.push(crowdRound)
  pacedRounds.push(pacedRound)
  roundRatios.push(crowdRound.p50 / pacedRound.p50)
}
const crowd = {
  ...summarise(crowdRounds.flatMap((r) => r.samples)),
  delivered: crowdRounds.reduce((sum, r) => sum + r.delivered, 0),
  fanOut: summarise(crowdRounds.flatMap((r) => r.fanOut?.samples ?? [])),
}
const paced = summarise(pacedRounds.flatMap((r) => r.samples))
const idleMs = Math.round(crowd.fanOut.p50)
const rows: [string, number, Summary][] = [
  ['direct seam (provider answers at once)', 0, direct],
  ['relay over loopback WebSocket, back to back', 1, single],
  [`relay over loopback WebSocket, ${idleMs} ms idle between asks`, 1, paced],
  ['relay over loopback WebSocket, each ask after the fan-out of the last', OBSERVERS + 1, crowd],
]

console.log(
  `## Relay\n\nRelay round trip — Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${ASKS} asks per row after ${WARMUP} warm-up (the crowd and the paced client: ${ROUNDS} alternating rounds of ${perRound}, each after its own warm-up)\n`,
)
console.log('| scenario | clients | p50 | p95 | p99 | mean | 1 / mean |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const [name, clients, s] of rows) {
  console.log(
    `| ${name} | ${clients} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.mean)} | ${Math.round(s.perSecond)}/s |`,
  )
}
if (crowd.fanOut !== undefined) {
  const f = crowd.fanOut
  console.log(
    `| … from ask until all ${OBSERVERS} observers read \`question/resolved\` | ${OBSERVERS + 1} | ${ms(f.p50)} | ${ms(f.p95)} | ${ms(f.p99)} | ${ms(f.mean)} | — |`,
  )
}
console.log('')
console.log(`- relay p50 / direct p50 (1 client): ${(single.p50 / direct.p50).toFixed(1)}×`)
console.log(
  `- relay p50, ${OBSERVERS + 1} clients / 1 client at the same pace: ${median(roundRatios).toFixed(2)}× (goal ${goal(median(roundRatios), 2)}; median of ${ROUNDS} alternating rounds: ${roundRatios.map((ratio) => ratio.toFixed(2)).join(', ')}); / 1 client back to back: ${(crowd.p50 / single.p50).toFixed(2)}×`,
)
console.log(
  `- p50 with 1 client: ${ms(single.p50)} (goal < 1 ms ${single.p50 < 1 ? 'met' : 'NOT met'})`,
)
console.log(
  `- frames the ${OBSERVERS} observers read: ${crowd.delivered} (${OBSERVERS} × ${ROUNDS * (perRound + WARMUP)} asks × requested + resolved = ${OBSERVERS * ROUNDS * (perRound + WARMUP) * 2})`,
)
