/**
 * Real processes on one Postgres schema: a keyed ask outliving a process
 * killed with SIGKILL, racing admits and settles from four processes (one
 * winner), and a process killed mid-write leaving every row whole.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, it } from 'vitest'
import type { AskStore } from '../../../src/protocol/store/index.js'
import { createPostgresStore } from '../../../src/stores/postgres/index.js'
import { describePostgres, freshSchema, withClient } from '../../support/postgres.js'
import { answered, newAsk } from '../store-contract.js'

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))

interface Child {
  process: ChildProcess
  /** The next JSON line matching `predicate`. */
  next(predicate?: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>
  exited: Promise<number | null>
}

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function start(url: string, mode: string, arg = ''): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, url, mode, arg], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  })
  const lines: Record<string, unknown>[] = []
  const waiting = new Set<() => void>()
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(JSON.parse(line) as Record<string, unknown>)
    for (const wake of [...waiting]) wake()
  })
  let read = 0
  return {
    process: child,
    exited,
    next: (predicate = () => true) =>
      new Promise((resolve, reject) => {
        const look = () => {
          while (read < lines.length) {
            const line = lines[read++] as Record<string, unknown>
            if (predicate(line)) {
              waiting.delete(look)
              resolve(line)
              return
            }
          }
        }
        waiting.add(look)
        void exited.then((code) => {
          look()
          if (waiting.delete(look)) reject(new Error(`the child exited (${code}) first`))
        })
        look()
      }),
  }
}

async function killed(child: Child): Promise<void> {
  child.process.kill('SIGKILL')
  await child.exited
}

describePostgres('postgres store across processes', () => {
  let store: AskStore
  const setup = async () => {
    const schema = await freshSchema()
    store = createPostgresStore({ connectionString: schema.url })
    cleanups.push(async () => {
      await store.close()
      await schema.drop()
    })
    return schema.url
  }

  it('keeps a keyed ask whose process was killed: the next process with the key gets the answer', async () => {
    const url = await setup()
    const first = start(url, 'admit-key', 'deploy-42')
    const admitted = await first.next()
    expect(admitted).toMatchObject({ admitted: 'admitted' })
    await killed(first)

    // Answered while no process asking is alive.
    const settled = await store.settle(admitted.askId as string, answered, Date.now())
    expect(settled).toMatchObject({ record: { state: 'settled', outcome: answered }, won: true })

    const second = start(url, 'admit-key', 'deploy-42')
    expect(await second.next()).toEqual({ admitted: 'existing', askId: admitted.askId })
    expect(await store.get(admitted.askId as string)).toMatchObject({ outcome: answered })
  }, 60_000)

  it('lets exactly one of four processes win a raced settle, and all of them read it', async () => {
    const url = await setup()
    const ask = newAsk()
    await store.admit(ask)
    const children = Array.from({ length: 4 }, () => start(url, 'race-settle', ask.askId))
    for (const child of children) await child.next((line) => line.ready === true)
    for (const child of children) child.process.stdin!.write('go\n')
    const results = await Promise.all(children.map((child) => child.next((l) => 'mine' in l)))
    expect(results.filter((result) => result.mine === true)).toHaveLength(1)
    // The process whose write committed is told so, and only that one.
    expect(results.filter((result) => result.wrote === true)).toEqual(
      results.filter((result) => result.mine === true),
    )
    const stored = (await store.get(ask.askId))?.outcome
    for (const result of results) expect(result.outcome).toEqual(stored)
  }, 60_000)

  it('admits one ask for a key four processes race to admit', async () => {
    const url = await setup()
    const children = Array.from({ length: 4 }, () => start(url, 'race-admit', 'raced'))
    for (const child of children) await child.next((line) => line.ready === true)
    for (const child of children) child.process.stdin!.write('go\n')
    const results = await Promise.all(children.map((child) => child.next((l) => 'status' in l)))
    expect(results.filter((result) => result.status === 'admitted')).toHaveLength(1)
    expect(new Set(results.map((result) => result.askId)).size).toBe(1)
    expect(await store.pending()).toHaveLength(1)
  }, 60_000)

  it('leaves every row whole when a writing process is killed mid-write', async () => {
    const url = await setup()
    const writer = start(url, 'churn')
    await writer.next((line) => (line.written as number) >= 50)
    await killed(writer)
    const pid = writer.process.pid as number
    // Each admit was followed by its settle, unless the kill fell between them.
    const faults: unknown[] = []
    const reader = createPostgresStore({
      connectionString: url,
      onCorruptRow: (error) => faults.push(error),
    })
    cleanups.push(() => reader.close())
    const pending = await reader.pending()
    expect(pending.length).toBeLessThanOrEqual(1)
    const rows = await withClient(url, (client) =>
      client.query<{ ask_id: string }>(`SELECT ask_id FROM askseam_asks WHERE ask_id LIKE $1`, [
        `child-${pid}-%`,
      ]),
    )
    expect(rows.rows.length).toBeGreaterThanOrEqual(50)
    for (const { ask_id } of rows.rows) expect(await reader.get(ask_id)).toBeDefined()
    expect(faults).toEqual([])
  }, 60_000)
})
