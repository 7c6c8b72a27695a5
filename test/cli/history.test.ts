/**
 * `askseam history` (DESIGN §12): the record of a store's asks as a table a
 * person reads or the JSON a script reads; a query that finds nothing is an
 * empty result; a mistake in the flags is one line and exit code 2.
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { formatHistory, runHistory } from '../../src/cli/history.js'
import type { HistoryRecord } from '../../src/cli/history.js'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore, AskUserQuestionItem } from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'
import { askseam } from '../support/cli.js'

const temp = tempDirectory()
afterAll(() => temp.remove())

const db: AskUserQuestionItem[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
]

/** Asks `db` on a seam over `store` with the key `key`, answered "Postgres" by a provider that names ada. */
async function answerOne(store: AskStore, key: string): Promise<void> {
  const seam = createUserQuestions({ store })
  seam.registerProvider({
    ask: () =>
      Promise.resolve({
        answers: [{ id: 'db', selected: ['Postgres'] }],
        by: { id: 'ada', via: 'terminal' },
      }),
  })
  await seam.ask({ questions: db, key })
  await seam.close()
}

const at = Date.UTC(2026, 11, 3, 16, 36, 53)
const records: HistoryRecord[] = [
  {
    askId: 'ask-2',
    key: 'call-7',
    agentId: 'builder',
    questions: [
      {
        id: 'plan',
        header: 'Plan review',
        question: 'Approve this plan?',
        detail: 'the plan',
        options: [{ label: 'Approve' }, { label: 'Revise' }],
        intent: { kind: 'plan-review', approve: 'Approve' },
      },
    ],
    digest: 'sha256:00',
    startedAt: at + 60_000,
    settledAt: at + 120_000,
    outcome: {
      status: 'answered',
      answer: { answers: [{ id: 'plan', selected: ['Approve'] }] },
      by: [
        { id: 'alice', name: 'Alice', via: 'web' },
        { id: 'bob', via: 'terminal' },
      ],
    },
    events: [
      { at: at + 60_000, type: 'admitted' },
      { at: at + 60_001, type: 'presented' },
      { at: at + 60_002, type: 'presented' },
      { at: at + 90_000, type: 'vote', by: { id: 'alice', via: 'web' } },
      { at: at + 120_000, type: 'vote', by: { id: 'bob', via: 'terminal' } },
      { at: at + 120_000, type: 'settled' },
    ],
  },
  {
    askId: 'ask-1',
    questions: [{ id: 'name', question: 'Name\u001b[2J it?\nplease' }],
    digest: 'sha256:01',
    startedAt: at,
    settledAt: at + 1_000,
    outcome: {
      status: 'rejected',
      error: { code: 'ASK_TIMEOUT', message: 'nobody answered', details: { reason: 'deadline' } },
      by: [],
    },
    events: [{ at, type: 'admitted' }],
  },
]

describe('the table a person reads', () => {
  it('shows each ask: id, when, questions in short, outcome, who answered via what, events', () => {
    expect(formatHistory(records).split('\n')).toEqual([
      'ASK    WHEN                  QUESTIONS            OUTCOME                 BY                                   EVENTS',
      'ask-2  2026-12-03 16:37:53Z  Plan review          answered: Approve       alice “Alice” (web), bob (terminal)  admitted, presented ×2, vote ×2, settled',
      '  key call-7 · agent builder',
      // The escape character a model wrote is gone; what followed it is plain text.
      'ask-1  2026-12-03 16:36:53Z  Name [2J it? please  ASK_TIMEOUT (deadline)  -                                    admitted',
      '',
    ])
  })

  it('says so when nothing matches', () => {
    expect(formatHistory([])).toBe('No asks found.\n')
  })

  it('reads the memory store through the same path, and the JSON is the AskHistory[] array', async () => {
    const store = createMemoryStore()
    await answerOne(store, 'k1')
    let table = ''
    await runHistory({ store, query: {}, json: false, write: (text) => (table += text) })
    expect(table).toMatch(/^ASK +WHEN +QUESTIONS +OUTCOME +BY +EVENTS\n/)
    expect(table).toContain('Which database?')
    expect(table).toContain('answered: Postgres')
    expect(table).toContain('key k1')
    let json = ''
    await runHistory({ store, query: { key: 'k1' }, json: true, write: (text) => (json += text) })
    expect(JSON.parse(json)).toEqual(await store.history({ key: 'k1' }))
    let none = ''
    await runHistory({ store, query: { key: 'nope' }, json: true, write: (text) => (none += text) })
    expect(JSON.parse(none)).toEqual([])
  })
})

describe.concurrent('askseam history', { timeout: 90_000 }, () => {
  it.each<[string[], string]>([
    [['history'], 'askseam: askseam history reads a store: give --store FILE or --postgres URL'],
    [
      ['history', '--store', 'a.db', '--postgres', 'postgres://x'],
      'askseam: give either --store FILE or --postgres URL, not both',
    ],
    [
      ['history', '--store', 'a.db', '--limit', '0'],
      'askseam: --limit takes a whole number from 1 to 1000, not "0"',
    ],
    [
      ['history', '--store', 'a.db', '--limit', 'ten'],
      'askseam: --limit takes a whole number from 1 to 1000, not "ten"',
    ],
  ])('%j is one line, exit 2', async (args, line) => {
    expect(await askseam(args)).toEqual({ code: 2, stdout: '', stderr: `${line}\n` })
  })

  it('an unknown option is one line and the usage, exit 2', async () => {
    const { code, stderr } = await askseam(['history', '--store', 'a.db', '--who', 'x'])
    expect(code).toBe(2)
    expect(stderr.split('\n')[0]).toBe('askseam: unknown option --who')
  })

  it('a store file that is not there is one line, exit 1, and is not created', async () => {
    const missing = join(temp.dir, 'missing.db')
    expect(await askseam(['history', '--store', missing])).toEqual({
      code: 1,
      stdout: '',
      stderr: `askseam: no store at ${missing}\n`,
    })
  })

  it('prints an empty result for a key no ask has, exit 0', async () => {
    const file = temp.file('empty.db')
    const store = createSqliteStore({ path: file })
    await answerOne(store, 'known')
    await store.close()
    expect(await askseam(['history', '--store', file, '--key', 'unknown', '--json'])).toEqual({
      code: 0,
      stdout: '[]\n',
      stderr: '',
    })
    expect(await askseam(['history', '--store', file, '--key', 'unknown'])).toEqual({
      code: 0,
      stdout: 'No asks found.\n',
      stderr: '',
    })
  })

  // Passes once the SQLite store keeps history (issue 23); until then its history is [].
  it('prints the record of an answered ask from a real SQLite file, as JSON and as a table', async () => {
    const file = temp.file('answered.db')
    const store = createSqliteStore({ path: file })
    await answerOne(store, 'call-1')
    await store.close()
    const json = await askseam(['history', '--store', file, '--key', 'call-1', '--json'])
    expect(json.code).toBe(0)
    const found = JSON.parse(json.stdout) as HistoryRecord[]
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({
      key: 'call-1',
      questions: db,
      outcome: { status: 'answered', answer: { answers: [{ id: 'db', selected: ['Postgres'] }] } },
    })
    const table = await askseam(['history', '--store', file, '--limit', '5'])
    expect(table.code).toBe(0)
    expect(table.stdout).toContain('answered: Postgres')
  })

  it('--help names every flag', async () => {
    const { code, stdout } = await askseam(['history', '--help'])
    expect(code).toBe(0)
    for (const flag of [
      '--store',
      '--postgres',
      '--key',
      '--ask',
      '--agent',
      '--limit',
      '--json',
    ]) {
      expect(stdout).toContain(flag)
    }
  })
})
