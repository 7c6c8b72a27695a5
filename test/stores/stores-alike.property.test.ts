/**
 * The three stores keep what they are given alike: the same asks (keys,
 * questions, answers and who gave them, plan reviews that need two
 * approvals, drawn from text with NULs, unpaired
 * surrogates, quotes, line separators and emoji) through a seam on the
 * memory store, on SQLite and on Postgres give every caller the same result
 * and leave the same record. Each case's asks run in turn on a fresh store
 * of each kind, so a key an earlier ask settled is replayed alike too. This is
 * the check that found an id a database cannot keep as given (see
 * `test/regression/ids-a-store-cannot-keep.test.ts`).
 */
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskHistory,
  AskStore,
  AskUserQuestionItem,
  AskUserQuestionRequest,
  ProviderAnswer,
  Responder,
  UserQuestions,
  UserQuestionError,
} from '../../src/protocol/index.js'
import { createPostgresStore } from '../../src/stores/postgres/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { queuedProvider } from '../support/controllable-provider.js'
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

type Named = { id: string; name?: string | undefined }

interface Ask {
  key: string | undefined
  question: string
  label: string
  /** The custom text typed, or the label chosen when absent. */
  custom: string | undefined
  by: Named | undefined
  /** A plan review that needs two approvals: `by` answers first, then `second` approves. */
  review: { second: Named } | undefined
}

const named: fc.Arbitrary<Named> = fc.record(
  { id: fc.oneof(text, fc.constantFrom('ana', 'bo')), name: fc.option(text, { nil: undefined }) },
  { requiredKeys: ['id'] },
)

const ask: fc.Arbitrary<Ask> = fc.record({
  // A few keys, so that asks meet under one now and then.
  key: fc.option(fc.oneof(text, fc.constantFrom('k\ud800', 'k\udbff', 'k')), { nil: undefined }),
  question: text,
  label: text,
  custom: fc.option(text, { nil: undefined }),
  by: fc.option(named, { nil: undefined }),
  review: fc.option(fc.record({ second: named }), { nil: undefined }),
})

/** What a caller got, as every store must give it. */
type Result = { answers: unknown } | { code: string; field: unknown }

/** The answers the provider gives the ask, in turn; once they run out, the human dismisses it. */
function answersFor(one: Ask): ProviderAnswer[] {
  const given = (by: Named | undefined, custom: string | undefined): ProviderAnswer => ({
    answers: [
      custom === undefined ? { id: 'q', selected: [one.label] } : { id: 'q', selected: [], custom },
    ],
    ...(by === undefined ? {} : { by: { ...by, via: 'web' } as Responder }),
  })
  const first = given(one.by, one.custom)
  return one.review === undefined ? [first] : [first, given(one.review.second, undefined)]
}

function requestFor(one: Ask): AskUserQuestionRequest {
  const options = [{ label: one.label }, { label: 'other' }]
  const question: AskUserQuestionItem =
    one.review === undefined
      ? { id: 'q', question: one.question, options }
      : {
          id: 'q',
          question: one.question,
          detail: '1. Build',
          options,
          intent: { kind: 'plan-review', approve: one.label },
        }
  return {
    questions: [question],
    // Generous for a loaded machine; only a store that loses an answer ever reaches it.
    timeoutMs: 10_000,
    ...(one.key === undefined ? {} : { key: one.key }),
    ...(one.review === undefined ? {} : { approvals: 2 }),
  }
}

async function run(seam: UserQuestions, queue: ProviderAnswer[], one: Ask): Promise<Result> {
  queue.splice(0, queue.length, ...answersFor(one))
  try {
    return { answers: (await seam.ask(requestFor(one))).answers }
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
  queue: ProviderAnswer[]
}

function side(name: string, store: AskStore): Side {
  const seam = createUserQuestions({ store })
  const queue: ProviderAnswer[] = []
  seam.registerProvider(queuedProvider(queue))
  return { name, store, seam, queue }
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
    for (const { name, seam, queue } of sides) {
      results[name] = []
      for (const one of asks) results[name].push(await run(seam, queue, one))
    }
    const recordsOf = async ({ seam }: Side) => (await seam.history({})).map(recordOf).sort()
    const [memory, ...durable] = await Promise.all(sides.map(recordsOf))
    for (const records of durable) expect(records).toEqual(memory)
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
