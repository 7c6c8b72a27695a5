/**
 * Who answers (DESIGN §12): a plan review needing two approvals, across
 * three processes on one SQLite file: this one asks, two consoles (each a
 * process, bench/quorum-voter.ts) show it; the first approves, then the
 * second. Measured: from the second console's answer to the asking caller's
 * promise settling, against the same path for a plain answer (one console
 * answers an ask without approvals), in the same run (goal: p50 at most 1.5×).
 *
 * Both paths end the same way: a commit in a console's process that the
 * asking process hears through the file's change feed (a poll every 25 ms
 * by default), so the ratio is what counting votes adds to that.
 *
 *   npm run bench -- quorum
 *
 * Environment: BENCH_QUORUM_SAMPLES (default 60) of each kind, alternating.
 */
import { fork } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createUserQuestions } from '../src/protocol/index.js'
import type { AskUserQuestionItem } from '../src/protocol/index.js'
import { createSqliteStore } from '../src/stores/sqlite/index.js'
import { goal, median, percentile, table } from './measure.js'
import { preciseNow } from './quorum-wire.js'
import type { VoterCommand, VoterReport } from './quorum-wire.js'

const SAMPLES = Number(process.env.BENCH_QUORUM_SAMPLES ?? 60)
const dir = mkdtempSync(join(tmpdir(), 'askseam-quorum-bench-'))
const path = join(dir, 'asks.db')
const plan: AskUserQuestionItem[] = [
  {
    id: 'plan',
    question: 'Ship the migration?',
    detail: '1. back up\n2. migrate\n3. deploy',
    options: [{ label: 'Approve' }, { label: 'Revise' }],
    intent: { kind: 'plan-review', approve: 'Approve' },
  },
]

/** A console process, and what it has reported so far. */
class Voter {
  readonly child: ChildProcess
  private readonly waiting: {
    match: (report: VoterReport) => boolean
    resolve: (r: VoterReport) => void
  }[] = []
  constructor() {
    this.child = fork(fileURLToPath(new URL('./quorum-voter.js', import.meta.url)), [path], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.child.on('message', (report: VoterReport) => {
      const index = this.waiting.findIndex(({ match }) => match(report))
      if (index !== -1) this.waiting.splice(index, 1)[0]!.resolve(report)
    })
  }
  /** The next report `match` accepts (reports nobody waits for are dropped). */
  next(match: (report: VoterReport) => boolean): Promise<VoterReport> {
    return new Promise((resolve) => this.waiting.push({ match, resolve }))
  }
  answer(command: VoterCommand): Promise<number> {
    const answered = this.next((r) => r.type === 'answered' && r.askId === command.askId)
    this.child.send(command)
    return answered.then((report) => (report as { at: number }).at)
  }
}

async function main(): Promise<void> {
  const store = createSqliteStore({ path })
  const seam = createUserQuestions({ store, waitForProviderMs: 10_000 })
  await store.pending()
  const [first, second] = [new Voter(), new Voter()]
  await Promise.all([first.next((r) => r.type === 'ready'), second.next((r) => r.type === 'ready')])
  const plain: number[] = []
  const quorum: number[] = []
  /** One ask: both consoles show it; `approvals` 2 has the first approve before the second. */
  const once = async (approvals: 1 | 2): Promise<number> => {
    const shownFirst = first.next((r) => r.type === 'shown')
    const shownSecond = second.next((r) => r.type === 'shown')
    let settledAt = 0
    const asked = seam
      .ask({ questions: plan, ...(approvals === 2 ? { approvals } : {}) })
      .then(() => (settledAt = preciseNow()))
    const { askId } = (await shownSecond) as { askId: string }
    await shownFirst
    if (approvals === 2) {
      const counted = first.next((r) => r.type === 'told' && r.askId === askId)
      await first.answer({ askId, label: 'Approve', by: { id: 'alice', via: 'web' } })
      await counted
    }
    const at = await second.answer({ askId, label: 'Approve', by: { id: 'bob', via: 'web' } })
    await asked
    return settledAt - at
  }
  for (let i = 0; i < 5; i += 1) {
    await once(1)
    await once(2)
  }
  for (let i = 0; i < SAMPLES; i += 1) {
    plain.push(await once(1))
    quorum.push(await once(2))
  }
  for (const voter of [first, second]) voter.child.send('exit')
  await seam.close()
  await store.close()
  const ratio = median(quorum) / median(plain)
  const ms = (value: number) => `${value.toFixed(1)} ms`
  console.log(
    [
      '## Who answers: two approvals across three processes (SQLite)',
      '',
      table(
        ['last answer → the asking caller', 'p50', 'p95', 'ratio (p50)', 'goal'],
        [
          ['one plain answer', ms(median(plain)), ms(percentile(plain, 95)), '1.00×', ''],
          [
            'the second of two approvals',
            ms(median(quorum)),
            ms(percentile(quorum, 95)),
            `${ratio.toFixed(2)}×`,
            goal(ratio, 1.5),
          ],
        ],
      ),
      '',
      `${SAMPLES} asks of each kind, alternating; three processes on one file, each its own connection.`,
    ].join('\n'),
  )
  rmSync(dir, { recursive: true, force: true })
}

await main()
