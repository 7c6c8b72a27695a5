/**
 * Durable asks end to end (DESIGN §10): seams in real child processes on one
 * SQLite file, killed with SIGKILL at the moments that matter; a new process
 * asking with the same key gets the answer or re-attaches to the same askId.
 */
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import type { AskStore, AskUserQuestionAnswer } from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { startChild } from '../support/processes.js'
import type { Child } from '../support/processes.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'

const CHILD = fileURLToPath(new URL('./durable-sqlite-child.ts', import.meta.url))
const QUESTIONS = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
]
const ANSWER: AskUserQuestionAnswer = { answers: [{ id: 'db', selected: ['SQLite'] }] }
const LONG_WAIT = 60_000

interface Event {
  event: string
  askId?: string
  askIds?: string[]
  answer?: AskUserQuestionAnswer
  code?: string
  details?: Record<string, unknown>
  presented?: number
  ms?: number
  status?: string
}

const cleanups: Array<() => void | Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function setup(): { path: string; store: AskStore } {
  const temp = tempDirectory()
  cleanups.push(temp.remove)
  const path = temp.file()
  const store = createSqliteStore({ path })
  cleanups.push(() => store.close())
  return { path, store }
}

const seamProcess = (path: string, config: Record<string, unknown>): Child =>
  startChild(CHILD, [path, JSON.stringify(config)], (kill) => cleanups.push(kill))

/** The child's next `name` event; fails naming everything it printed when none comes. */
async function event(child: Child, name: string, limitMs = 30_000): Promise<Event> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no ${name} event; the child printed:\n${child.lines.join('\n')}`)),
      limitMs,
    )
  })
  try {
    const line = await Promise.race([
      child.next((l) => (JSON.parse(l) as Event).event === name),
      late,
    ])
    return JSON.parse(line) as Event
  } finally {
    clearTimeout(timer)
  }
}

/** The askId a child is asking with, once the store holds it. */
async function admitted(child: Child, store: AskStore): Promise<string> {
  const [askId] = (await event(child, 'asking')).askIds as string[]
  await until(async () => store.get(askId as string), 'the admission')
  return askId as string
}
const events = (child: Child, name: string): Event[] =>
  child.lines.map((l) => JSON.parse(l) as Event).filter((e) => e.event === name)

async function until<T>(read: () => Promise<T | undefined>, what: string, limitMs = 20_000) {
  const end = Date.now() + limitMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

function rowsWithKey(path: string, key: string): number {
  const db = new Database(path, { readonly: true })
  try {
    return (
      db.prepare('SELECT count(*) AS n FROM asks WHERE ask_key = ?').get(key) as { n: number }
    ).n
  } finally {
    db.close()
  }
}

describe('durable asks on SQLite across real processes', () => {
  it('a process killed after admission: the next process asking with the key re-attaches to the same askId and gets the answer', async () => {
    const { path, store } = setup()
    const first = seamProcess(path, { ask: true, key: 'k-admitted', waitForProviderMs: LONG_WAIT })
    const askId = await admitted(first, store)
    expect(await store.get(askId)).toMatchObject({ state: 'pending', key: 'k-admitted' })
    await first.kill()

    const second = seamProcess(path, {
      ask: true,
      key: 'k-admitted',
      provider: 'answer-now',
      waitForProviderMs: LONG_WAIT,
    })
    expect((await event(second, 'presented')).askId).toBe(askId)
    expect((await event(second, 'resolved')).answer).toEqual(ANSWER)
    expect(events(second, 'presented')).toHaveLength(1)
    expect(await store.get(askId as string)).toMatchObject({ outcome: { status: 'answered' } })
    expect(rowsWithKey(path, 'k-admitted')).toBe(1)
  }, 90_000)

  it('a process killed during a presentation: the next process presents the same askId and its caller gets the answer', async () => {
    const { path, store } = setup()
    const first = seamProcess(path, { ask: true, key: 'k-presented', provider: 'hold' })
    const { askId } = await event(first, 'presented')
    await first.kill()

    const second = seamProcess(path, { ask: true, key: 'k-presented', provider: 'answer-now' })
    expect((await event(second, 'presented')).askId).toBe(askId)
    expect((await event(second, 'resolved')).answer).toEqual(ANSWER)
    expect(await store.get(askId as string)).toMatchObject({ state: 'settled' })
    expect(rowsWithKey(path, 'k-presented')).toBe(1)
  }, 90_000)

  it('a process killed after the answer’s commit, before its caller resolved: the key returns the answer, nothing is asked twice', async () => {
    const { path, store } = setup()
    const asker = seamProcess(path, { ask: true, key: 'k-committed', waitForProviderMs: LONG_WAIT })
    const askId = await admitted(asker, store)
    const provider = seamProcess(path, { provider: 'answer-on-go' })
    expect((await event(provider, 'presented')).askId).toBe(askId)
    provider.send('go')
    // Killed as soon as the commit is visible: the asker's own poll has not run yet.
    await until(
      async () => ((await store.get(askId as string))?.state === 'settled' ? true : undefined),
      'the commit',
    )
    asker.process.kill('SIGKILL')
    await asker.exited
    await provider.kill()

    // No provider is live anywhere: a settled key still returns its outcome.
    const again = seamProcess(path, { ask: true, key: 'k-committed' })
    expect((await event(again, 'resolved')).answer).toEqual(ANSWER)
    expect(events(provider, 'presented')).toHaveLength(1)
    expect(rowsWithKey(path, 'k-committed')).toBe(1)
  }, 90_000)

  it('two providers in two processes answering in the same millisecond: one wins, the other is told it lost', async () => {
    const { path, store } = setup()
    const asker = seamProcess(path, { ask: true, waitForProviderMs: LONG_WAIT })
    const askId = await admitted(asker, store)
    const providers = ['from one', 'from two'].map((custom) =>
      seamProcess(path, { provider: 'answer-on-go', custom }),
    )
    for (const provider of providers) expect((await event(provider, 'presented')).askId).toBe(askId)
    for (const provider of providers) provider.send('go')

    const { answer } = await event(asker, 'resolved')
    const winner = answer?.answers[0]?.custom
    expect(['from one', 'from two']).toContain(winner)
    const loser = providers[winner === 'from one' ? 1 : 0] as Child
    const theWinner = providers[winner === 'from one' ? 0 : 1] as Child
    // The loser had settled its own presentation, so its signal stays (§4); the
    // seam refuses its answer instead, as a relay client hears not-pending.
    expect(await event(loser, 'settlement')).toMatchObject({
      askId,
      status: 'refused',
      code: 'ASK_ABORTED',
      details: { reason: 'settled-elsewhere' },
    })
    expect((await event(theWinner, 'settlement')).status).not.toBe('refused')
    expect(await store.get(askId)).toMatchObject({
      outcome: { answer: { answers: [{ custom: winner }] } },
    })
  }, 90_000)

  it('a deadline passing while every process is down: the first seam back ends it ASK_TIMEOUT with the original deadline', async () => {
    const { path, store } = setup()
    const first = seamProcess(path, {
      ask: true,
      key: 'k-deadline',
      timeoutMs: 1_000,
      waitForProviderMs: LONG_WAIT,
    })
    const askId = await admitted(first, store)
    const held = await store.get(askId)
    const deadline = held?.deadline as number
    expect(deadline).toBeGreaterThan(held?.startedAt as number)
    await first.kill()
    while (Date.now() <= deadline + 200) await new Promise((resolve) => setTimeout(resolve, 50))
    // Nobody is alive to end it.
    expect(await store.get(askId as string)).toMatchObject({ state: 'pending' })

    const back = seamProcess(path, {})
    await event(back, 'ready')
    const ended = await until(async () => {
      const record = await store.get(askId as string)
      return record?.state === 'settled' ? record : undefined
    }, 'the timeout')
    expect(ended.outcome).toEqual({
      status: 'rejected',
      error: {
        code: 'ASK_TIMEOUT',
        message: expect.any(String),
        details: { deadline, startedAt: held?.startedAt },
      },
    })
    const again = seamProcess(path, { ask: true, key: 'k-deadline' })
    expect(await event(again, 'rejected')).toMatchObject({
      code: 'ASK_TIMEOUT',
      details: { deadline },
    })
  }, 90_000)

  it('10,000 pending asks in the store when a seam starts: it comes up and presents them all', async () => {
    const { path, store } = setup()
    await store.pending()
    const db = new Database(path)
    const insert = db.prepare(
      `INSERT INTO asks (ask_id, ask_key, questions, owner_seam_id, started_at, state, revision, schema_version)
       VALUES (?, ?, ?, 'a-seam-long-gone', ?, 'pending', 1, 1)`,
    )
    const questions = JSON.stringify(QUESTIONS)
    db.transaction(() => {
      // Keyed: the dead owner's keyless asks would (rightly) end owner-gone.
      for (let i = 0; i < 10_000; i += 1) insert.run(`backlog-${i}`, `key-${i}`, questions, i)
      db.prepare('UPDATE revision SET asks = 1').run()
    })()
    db.close()

    const seam = seamProcess(path, { provider: 'count', expect: 10_000 })
    const counted = await event(seam, 'count')
    expect(counted.presented).toBe(10_000)
    expect((await store.pending()).length).toBe(10_000)
  }, 120_000)
})
