/**
 * A separate process on a shared store file, driven by multi-process.test.ts:
 *
 *   node --import tsx child.ts <path> admit-race <key>     admit with the key on "go"
 *   node --import tsx child.ts <path> settle-race <askId>  settle the ask on "go"
 *   node --import tsx child.ts <path> admit-loop           admit until killed, one line per commit
 *   node --import tsx child.ts <path> hold-transaction     write rows in an open transaction, then wait
 *
 * Prints "ready" once the store is open, then one JSON line per result.
 */
import { createInterface } from 'node:readline'
import Database from 'better-sqlite3'
import type { NewAskRecord } from '../../../src/protocol/store/index.js'
import { createSqliteStore } from '../../../src/stores/sqlite/index.js'

const [path, mode, arg] = process.argv.slice(2) as [string, string, string | undefined]
const store = createSqliteStore({ path })
let sequence = 0

function ask(key?: string): NewAskRecord {
  sequence += 1
  return {
    askId: `child-${process.pid}-${sequence}`,
    ...(key === undefined ? {} : { key }),
    questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }] }],
    ownerSeamId: `seam-${process.pid}`,
    startedAt: Date.now(),
  }
}

const say = (value: unknown): void => {
  process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`)
}
const go = (): Promise<void> =>
  new Promise((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()))

await store.pending()
say('ready')

if (mode === 'admit-race') {
  await go()
  const result = await store.admit(ask(arg))
  say({ status: result.status, askId: result.record.askId })
} else if (mode === 'settle-race') {
  await go()
  const mine = `answered by ${process.pid}`
  const settled = await store.settle(
    arg as string,
    { status: 'answered', answer: { answers: [{ id: 'db', selected: [], custom: mine }] } },
    Date.now(),
  )
  const outcome = settled?.record.outcome
  say({
    mine,
    winner: outcome?.status === 'answered' && outcome.answer.answers[0]?.custom,
    wrote: settled?.won,
  })
} else if (mode === 'admit-loop') {
  for (;;) {
    const result = await store.admit(ask())
    say({ committed: result.record.askId })
  }
} else if (mode === 'hold-transaction') {
  await store.close()
  const db = new Database(path)
  db.exec('BEGIN IMMEDIATE')
  const insert = db.prepare(
    `INSERT INTO asks (ask_id, questions, owner_seam_id, started_at, state, revision, schema_version)
     VALUES (?, '[{"id":"q","question":"?"}]', 'seam-held', 1, 'pending', 1, 1)`,
  )
  // Enough rows that pages spill from the cache into the WAL before the kill.
  for (let i = 0; i < 20_000; i += 1) insert.run(`uncommitted-${i}`)
  say('holding')
  // Holds `db` too: a connection the collector frees closes, and its lock goes with it.
  setInterval(() => db.open, 1_000)
}
if (mode !== 'admit-loop' && mode !== 'hold-transaction') await store.close()
