/**
 * A process on a Postgres store, driven by postgres-processes.test.ts: one
 * JSON line per event on stdout; `go` on stdin releases a race.
 *
 *   node --import tsx child.ts URL admit-key KEY      admits, then waits to be killed
 *   node --import tsx child.ts URL race-admit KEY     on `go`: admits with KEY, prints, exits
 *   node --import tsx child.ts URL race-settle ASKID  on `go`: settles ASKID, prints, exits
 *   node --import tsx child.ts URL churn              admits and settles until killed
 *   node --import tsx child.ts URL cut-and-settle PID:ASKID
 *       ends the backend PID (another store's LISTEN connection), waits until
 *       it is gone, settles ASKID answered, prints the record, exits
 */
import { createInterface } from 'node:readline'
import pg from 'pg'
import type { AskOutcome } from '../../../src/protocol/store/index.js'
import { createPostgresStore } from '../../../src/stores/postgres/index.js'

const [url, mode, arg = ''] = process.argv.slice(2)
const store = createPostgresStore({ connectionString: url as string })
const say = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`)
const questions = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
]
const newAsk = (key?: string) => ({
  askId: `child-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  questions,
  ownerSeamId: `seam-${process.pid}`,
  startedAt: Date.now(),
  ...(key === undefined ? {} : { key }),
})
const go = () =>
  new Promise<void>((resolve) => {
    createInterface({ input: process.stdin }).on('line', (line) => {
      if (line === 'go') resolve()
    })
  })

if (mode === 'admit-key') {
  const result = await store.admit(newAsk(arg))
  say({ admitted: result.status, askId: result.record.askId })
  // Holds its connections open until the test kills it.
  setInterval(() => undefined, 60_000)
} else if (mode === 'race-admit') {
  await store.pending() // connected and migrated before the start line
  say({ ready: true })
  await go()
  const result = await store.admit(newAsk(arg))
  say({ status: result.status, askId: result.record.askId })
  await store.close()
} else if (mode === 'race-settle') {
  await store.pending()
  say({ ready: true })
  await go()
  const outcome: AskOutcome = {
    status: 'answered',
    answer: { answers: [{ id: 'db', selected: [], custom: `process ${process.pid}` }] },
  }
  const settled = await store.settle(arg, outcome, Date.now())
  // Compared by content, not by the text of the JSON.
  const won = settled?.record.outcome
  const mine =
    won?.status === 'answered' && won.answer.answers[0]?.custom === `process ${process.pid}`
  say({ outcome: won, mine, wrote: settled?.won })
  await store.close()
} else if (mode === 'churn') {
  store.watch(() => undefined)
  for (let written = 0; ; written += 1) {
    const ask = newAsk(`churn-${process.pid}-${written}`)
    await store.admit(ask)
    const skipped = { answers: [{ id: 'db', selected: [] }] }
    await store.settle(ask.askId, { status: 'answered', answer: skipped }, Date.now())
    say({ written })
  }
} else if (mode === 'cut-and-settle') {
  const colon = arg.indexOf(':')
  const pid = Number(arg.slice(0, colon))
  const askId = arg.slice(colon + 1)
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query('SELECT pg_terminate_backend($1)', [pid])
  // Gone, so the settle's notification cannot reach that connection.
  while ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  await admin.end()
  const outcome: AskOutcome = {
    status: 'answered',
    answer: { answers: [{ id: 'db', selected: ['SQLite'] }] },
  }
  say({ settled: (await store.settle(askId, outcome, 4_242))?.record })
  await store.close()
} else {
  throw new Error(`unknown mode ${mode ?? ''}`)
}
