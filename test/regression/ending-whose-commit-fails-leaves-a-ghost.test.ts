/**
 * A local ending (a caller's abort) whose commit failed once, the SQLite
 * file locked past its busy timeout, ended the ask `STORE_FAILED` for its
 * caller at once while the row stayed pending: every other seam went on
 * presenting a question nobody waited for, for as long as the owner lived,
 * and the provider's signal said `ASK_ABORTED` while the caller got
 * `STORE_FAILED`. Now the ending's commit is tried again with backoff
 * (DESIGN §6: a local ending is only a proposal until the store commits it).
 *
 * And a row that stopped parsing while its ask was presented made the
 * answer's commit retry for ever: the caller waited with no deadline. A
 * failure that cannot pass ends the ask `STORE_FAILED` (DESIGN §10).
 */
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskStore,
  ProviderRequest,
  ProviderSettlement,
  UserQuestionError,
  UserQuestions,
} from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'

const questions = [{ id: 'go', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }]
const BUSY_MS = 100

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function file(): string {
  const temp = tempDirectory()
  cleanups.push(temp.remove)
  return temp.file()
}

function seamOn(path: string, options: { onCorruptRow?: () => void } = {}) {
  const store: AskStore = createSqliteStore({
    path,
    pollIntervalMs: 10,
    busyTimeoutMs: BUSY_MS,
    ...options,
  })
  // A keyless ask waits for the console's provider until this seam has read the fleet.
  const seam: UserQuestions = createUserQuestions({ store, waitForProviderMs: 10_000 })
  cleanups.push(() => store.close())
  cleanups.push(() => seam.close())
  return seam
}

/** Observes a promise without letting a rejection go unhandled. */
function watch<T>(promise: Promise<T>) {
  const seen: { settled: boolean; value?: T; error?: UserQuestionError } = { settled: false }
  promise.then(
    (value) => Object.assign(seen, { settled: true, value }),
    (error: unknown) => Object.assign(seen, { settled: true, error }),
  )
  return seen
}

const aborted = (request: ProviderRequest) =>
  new Promise<UserQuestionError>((resolve) => {
    if (request.signal.aborted) resolve(request.signal.reason as UserQuestionError)
    request.signal.addEventListener('abort', () =>
      resolve(request.signal.reason as UserQuestionError),
    )
  })

describe('regression: an ending whose commit fails leaves a ghost', () => {
  it('a caller’s abort committed under a lock held past the busy timeout is tried again: the store, the caller and every provider agree', async () => {
    const path = file()
    const asker = seamOn(path)
    const console = seamOn(path)
    const provider = createControllableProvider()
    console.registerProvider(provider)
    const caller = new AbortController()
    const asked = watch(asker.ask({ questions, signal: caller.signal }))
    const { request } = await provider.call(0)

    const locker = new Database(path)
    cleanups.push(() => locker.close())
    locker.exec('BEGIN IMMEDIATE')
    caller.abort(new Error('the run was cancelled'))
    // The lock outlasts the busy timeout several times over: the first writes fail.
    await new Promise((resolve) => setTimeout(resolve, 5 * BUSY_MS))
    expect(asked.settled).toBe(false)
    expect(locker.prepare('SELECT state FROM asks').all()).toEqual([{ state: 'pending' }])

    locker.exec('COMMIT')
    await expect.poll(() => asked.settled, { timeout: 10_000 }).toBe(true)
    expect(asked.error).toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: 'caller-aborted' },
    })
    expect(locker.prepare('SELECT state, outcome FROM asks').get()).toMatchObject({
      state: 'settled',
      outcome: expect.stringContaining('caller-aborted'),
    })
    // The other seam's presentation comes down with the same ending, and is listed nowhere.
    expect(await aborted(request)).toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: 'caller-aborted' },
    })
    await expect.poll(() => console.pending()).toEqual([])
  }, 30_000)

  it('a row that stops parsing while its ask is presented ends the ask STORE_FAILED: the caller does not wait for ever', async () => {
    const path = file()
    const seam = seamOn(path, { onCorruptRow: () => undefined })
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const asked = watch(seam.ask({ questions }))
    const call = await provider.call(0)
    const settlement = call.request.settlement as Promise<ProviderSettlement>

    const db = new Database(path)
    cleanups.push(() => db.close())
    db.prepare('UPDATE asks SET schema_version = 99').run()
    call.resolve({ answers: [{ id: 'go', selected: ['Yes'] }] })

    await expect.poll(() => asked.settled, { timeout: 10_000 }).toBe(true)
    expect(asked.error).toMatchObject({ code: 'STORE_FAILED' })
    expect(asked.error?.cause).toMatchObject({ name: 'CorruptRowError' })
    expect(await settlement).toMatchObject({ status: 'refused', error: { code: 'STORE_FAILED' } })
    expect(call.request.signal.reason).toMatchObject({ code: 'STORE_FAILED' })
    expect(seam.pending()).toEqual([])
  })
})
