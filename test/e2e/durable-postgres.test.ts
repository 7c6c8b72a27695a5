/**
 * DESIGN §10 end to end on a real Postgres server with real processes: a
 * keyed ask outlives its process killed with SIGKILL, is answered by a seam
 * in another process while no asker is alive, and the next process that asks
 * with the key gets that answer without anyone being asked again.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, it } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionAnswer } from '../../src/protocol/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { describePostgres, freshSchema } from '../support/postgres.js'

const CHILD = fileURLToPath(new URL('./durable-postgres.child.ts', import.meta.url))

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface Asker {
  process: ChildProcess
  lines: Record<string, unknown>[]
  /** Resolves with the first line (so far or to come) that `predicate` accepts. */
  line(predicate: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>
  exited: Promise<number | null>
}

function asker(url: string, key: string): Asker {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, url, key], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  })
  const lines: Record<string, unknown>[] = []
  const wakers = new Set<() => void>()
  createInterface({ input: child.stdout! }).on('line', (text) => {
    lines.push(JSON.parse(text) as Record<string, unknown>)
    for (const wake of [...wakers]) wake()
  })
  return {
    process: child,
    lines,
    exited,
    line: (predicate) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const found = lines.find(predicate)
          if (found === undefined) return
          wakers.delete(look)
          resolve(found)
        }
        wakers.add(look)
        void exited.then((code) => {
          look()
          if (wakers.delete(look)) reject(new Error(`the asker exited (${code}) first`))
        })
        look()
      }),
  }
}

const answer: AskUserQuestionAnswer = { answers: [{ id: 'db', selected: ['SQLite'] }] }

describePostgres('durable asks on Postgres across processes', () => {
  it('keeps a keyed ask through SIGKILL; the next asker with the key gets the answer given meanwhile', async () => {
    const schema = await freshSchema()
    const store = createPostgresStore({ connectionString: schema.url })
    cleanups.push(async () => {
      await store.close()
      await schema.drop()
    })

    // The first asker: its ask is admitted and presented, then it dies.
    const first = asker(schema.url, 'deploy-db')
    const presented = await first.line((line) => 'presented' in line)
    const askId = presented.presented as string
    first.process.kill('SIGKILL')
    await first.exited
    expect(await store.get(askId)).toMatchObject({ state: 'pending', key: 'deploy-db' })

    // A console in this process presents the store's pending asks, the dead
    // process's too, and the human answers while nobody asking is alive.
    const console = createUserQuestions({ store })
    const shown: string[] = []
    const dispose = console.registerProvider({
      ask: async (request) => {
        shown.push(request.askId)
        return answer
      },
    })
    const deadline = Date.now() + 30_000
    while ((await store.get(askId))?.state !== 'settled') {
      if (Date.now() > deadline) throw new Error('the console never answered the orphaned ask')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(shown).toEqual([askId])
    dispose()
    await console.close()

    // The next asker with the key: the stored answer, at once, asked of nobody.
    const second = asker(schema.url, 'deploy-db')
    const result = await second.line((line) => 'answered' in line || 'error' in line)
    expect(result).toEqual({ answered: answer })
    await second.exited
    expect(second.lines.filter((line) => 'presented' in line)).toEqual([])
    expect(await store.pending()).toEqual([])
  }, 90_000)
})
