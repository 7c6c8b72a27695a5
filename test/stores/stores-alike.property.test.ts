/**
 * The three stores keep what they are given alike: the same asks (keys,
 * questions, answers and who gave them, drawn from text with NULs, unpaired
 * surrogates, quotes, line separators and emoji) through a seam on the
 * memory store, on SQLite and on Postgres give every caller the same result
 * and leave the same record. Each case's asks run in turn on a fresh store
 * of each kind, so a key an earlier ask settled is replayed alike too. This is
 * the check that found an id a database cannot keep as given (see
 * `test/regression/ids-a-store-cannot-keep.test.ts`).
 */
import fc from 'fast-check'
import { expect, it, vi } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskHistory,
  AskStore,
  AskUserQuestionRequest,
  ProviderAnswer,
  Responder,
  UserQuestionError,
  UserQuestions,
} from '../../src/protocol/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { describePostgres, freshSchema } from '../support/postgres.js'
import { tempDirectory } from './sqlite/temp-file.js'

/** Text as clients and callers may send it, the characters databases treat apart among it. */
const text = fc.string({
  unit: fc.constantFrom(
    'a',
    'é',
    ' ',
    '"',
    '\\',
    '\n',
    '\u2028',
    '\u0000',
    '\ud800',
    '\udbff',
    '\udc00',
    '🙂',
  ),
  minLength: 1,
  maxLength: 5,
})

interface Ask {
  key: string | undefined
  question: string
  label: string
  /** The custom text typed, or the label chosen when absent. */
  custom: string | undefined
  by: { id: string; name?: string | undefined } | undefined
}

const ask: fc.Arbitrary<Ask> = fc.record({
  // A few keys, so that asks meet under one now and then.
  key: fc.option(fc.oneof(text, fc.constantFrom('k\ud800', 'k\udbff', 'k')), { nil: undefined }),
  question: text,
  label: text,
  custom: fc.option(text, { nil: undefined }),
  by: fc.option(
    fc.record({ id: text, name: fc.option(text, { nil: undefined }) }, { requiredKeys: ['id'] }),
    {
      nil: undefined,
    },
  ),
})

/** What a caller got, as every store must give it. */
type Result = { answers: unknown } | { code: string; field: unknown }

async function run(
  seam: UserQuestions,
  answer: { current: ProviderAnswer },
  one: Ask,
): Promise<Result> {
  answer.current = {
    answers: [
      one.custom === undefined
        ? { id: 'q', selected: [one.label] }
        : { id: 'q', selected: [], custom: one.custom },
    ],
    ...(one.by === undefined ? {} : { by: { ...one.by, via: 'web' } as Responder }),
  }
  const request: AskUserQuestionRequest = {
    questions: [
      { id: 'q', question: one.question, options: [{ label: one.label }, { label: 'other' }] },
    ],
    timeoutMs: 20_000,
    ...(one.key === undefined ? {} : { key: one.key }),
  }
  try {
    return { answers: (await seam.ask(request)).answers }
  } catch (caught: unknown) {
    const error = caught as UserQuestionError
    return { code: error.code, field: error.details?.field }
  }
}

/** A record without what differs by store and by run (ids and times), as sortable text. */
function recordOf({ key, questions, digest, outcome, events }: AskHistory): string {
  return JSON.stringify({
    key,
    questions,
    digest,
    outcome,
    events: events.map(({ type, by, detail }) => ({ type, by, detail })),
  })
}

interface Side {
  name: string
  store: AskStore
  seam: UserQuestions
  answer: { current: ProviderAnswer }
}

function side(name: string, store: AskStore): Side {
  const seam = createUserQuestions({ store })
  const answer = { current: { answers: [] } as ProviderAnswer }
  seam.registerProvider({ ask: () => Promise.resolve(answer.current) })
  return { name, store, seam, answer }
}

/**
 * Runs `asks` in turn through a seam on a fresh store of each kind, checks the
 * records each store is left with are alike, and gives what each caller got.
 */
async function throughEachStore(asks: Ask[]) {
  const sqliteFiles = tempDirectory()
  const schema = await freshSchema()
  const sides = [
    side('memory', createMemoryStore()),
    side('sqlite', createSqliteStore({ path: sqliteFiles.file(), pollIntervalMs: 10 })),
    side('postgres', createPostgresStore({ connectionString: schema.url })),
  ]
  try {
    const results: Record<string, Result[]> = {}
    for (const { name, seam, answer } of sides) {
      results[name] = []
      for (const one of asks) results[name].push(await run(seam, answer, one))
    }
    const recordsOf = async ({ seam }: Side) => (await seam.history({})).map(recordOf).sort()
    const memory = await recordsOf(sides[0] as Side)
    // The record is written beside the ask, never in its way: a `presented` event may land
    // just after its caller heard. So a durable store's record is read until it is whole.
    for (const durable of sides.slice(1)) {
      await vi.waitFor(async () => expect(await recordsOf(durable)).toEqual(memory), {
        timeout: 5_000,
      })
    }
    return results
  } finally {
    for (const { seam, store } of sides) {
      await seam.close()
      await store.close()
    }
    await schema.drop()
    sqliteFiles.remove()
  }
}

describePostgres('the three stores keep what they are given alike', () => {
  it('gives every caller the same result and leaves the same record, on every store', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(ask, { minLength: 1, maxLength: 4 }), async (asks) => {
        const results = await throughEachStore(asks)
        expect(results.sqlite).toEqual(results.memory)
        expect(results.postgres).toEqual(results.memory)
      }),
      { numRuns: 60 },
    )
  }, 180_000)
})
