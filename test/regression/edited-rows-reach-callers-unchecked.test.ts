/**
 * A row edited by hand in a SQLite file reached callers and providers as it
 * was: a replayed answer with a null item, an unknown question id or a label
 * that is no option resolved the caller's `ask({ key })`, and questions with
 * a duplicate id or options that are not a list were shown to another
 * seam's provider. The store is a trust boundary (DESIGN §10): a row is
 * parsed as the seam checked what it wrote, so such a row is `STORE_FAILED`
 * for the asks it touches and is shown to nobody.
 */
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore, UserQuestions } from '../../src/protocol/index.js'
import type { CorruptRowError } from '../../src/protocol/store/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'

const questions = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
]

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function file() {
  const temp = tempDirectory()
  cleanups.push(temp.remove)
  return temp.file()
}

function open(path: string, reported: CorruptRowError[] = []): AskStore {
  const store = createSqliteStore({
    path,
    pollIntervalMs: 10,
    onCorruptRow: (error) => reported.push(error),
  })
  cleanups.push(() => store.close())
  return store
}

function seamOn(store: AskStore): UserQuestions {
  const seam = createUserQuestions({ store })
  cleanups.push(() => seam.close())
  return seam
}

/** Writes `value` into `column` of the row under `key`, as someone with the file open would. */
function edit(path: string, key: string, column: 'outcome' | 'questions', value: unknown): void {
  const db = new Database(path)
  try {
    const { changes } = db
      .prepare(`UPDATE asks SET ${column} = ? WHERE ask_key = ?`)
      .run(JSON.stringify(value), key)
    expect(changes).toBe(1)
  } finally {
    db.close()
  }
}

describe('§10 the store is a trust boundary: rows edited by hand', () => {
  it.each([
    ['an answer item that is null', { answers: [null] }],
    [
      'an unknown question and a label that is no option',
      { answers: [{ id: 'x', selected: ['DROP TABLE'] }] },
    ],
    ['an answer that leaves its question out', { answers: [] }],
  ])(
    'a replayed answer with %s is STORE_FAILED, never the caller’s answer',
    async (_name, answer) => {
      const path = file()
      const seam = seamOn(open(path))
      seam.registerProvider({
        ask: async () => ({ answers: [{ id: 'db', selected: ['SQLite'] }] }),
      })
      await expect(seam.ask({ key: 'k', questions })).resolves.toStrictEqual({
        answers: [{ id: 'db', selected: ['SQLite'] }],
      })
      edit(path, 'k', 'outcome', { status: 'answered', answer })
      const replay = seam.ask({ key: 'k', questions })
      await expect(replay).rejects.toMatchObject({ code: 'STORE_FAILED' })
      await expect(replay).rejects.toHaveProperty(
        'cause.message',
        expect.stringContaining('the answer does not answer its questions'),
      )
    },
  )

  it('a pending ask whose questions were edited is shown to no provider', async () => {
    const path = file()
    const store = open(path)
    const asker = seamOn(store)
    const edited = asker.ask({ key: 'edited', questions })
    edited.catch(() => undefined)
    const valid = asker.ask({ key: 'valid', questions })
    // The asker's seam has no provider: each ask waits in the file for a UI.
    await expect.poll(async () => (await store.pending()).length).toBe(2)
    edit(path, 'edited', 'questions', [
      { id: 'db', question: 'Which database?', options: 'not-a-list', multiSelect: 'yes' },
      { id: 'db', question: 'a second question with the same id' },
    ])
    const reported: CorruptRowError[] = []
    const ui = seamOn(open(path, reported))
    const provider = createControllableProvider()
    ui.registerProvider(provider)
    const shown = await provider.call(0)
    expect(shown.request.questions).toStrictEqual(questions)
    shown.resolve({ answers: [{ id: 'db', selected: ['Postgres'] }] })
    await expect(valid).resolves.toStrictEqual({ answers: [{ id: 'db', selected: ['Postgres'] }] })
    expect(reported.map((error) => error.message)).toContainEqual(
      expect.stringMatching(
        /questions are not valid questions: questions\[0\].options must be an array/,
      ),
    )
    expect(provider.calls).toHaveLength(1)
    const [left] = asker.pending()
    expect(left).toBeDefined()
    expect(ui.pending().map(({ askId }) => askId)).not.toContain(left?.askId)
  })
})
