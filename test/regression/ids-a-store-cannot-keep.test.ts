/**
 * Found probing what text each store keeps: an id a store keys on (an ask's
 * key, a responder's id) holding a NUL or an unpaired surrogate. Postgres's
 * `text` refuses a NUL, so a keyed ask failed `STORE_FAILED`, and an approval
 * by such a responder could never be written: its presentation retried the
 * vote until the deadline and the asker got `ASK_TIMEOUT`, the approval lost
 * and the provider never told. UTF-8 has no unpaired surrogate, so SQLite and
 * Postgres made `'k\ud800'` and `'k\udbff'` one key (and one voter) where the
 * memory store kept two. Now such a key is `INVALID_REQUEST` on every store,
 * such a responder's answer is refused `BAD_ANSWER` at once (the ask goes
 * on), and askseam's MCP providers name a client by an id every store keeps.
 */
import { describe, expect, it } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskStore,
  ProviderAnswer,
  ProviderRequest,
  UserQuestionError,
} from '../../src/protocol/index.js'
import { describeDialects } from '../support/dialects.js'
import { planToApprove as plan } from '../support/plan-review.js'

/** Two approvals asked for; the first approver's id holds a NUL. What the provider was told, in order. */
async function approveWithNulFirst(store: AskStore) {
  const seam = createUserQuestions({ store })
  const voters = ['alice\u0000', 'bob', 'carol']
  const told: string[] = []
  seam.registerProvider({
    ask({ settlement }: ProviderRequest): Promise<ProviderAnswer> {
      const id = voters.shift() ?? 'nobody'
      void settlement?.then((verdict) =>
        told.push(
          verdict.status === 'refused'
            ? `${id}: ${verdict.error.code}`
            : `${id}: ${verdict.status}`,
        ),
      )
      return Promise.resolve({
        answers: [{ id: 'plan', selected: ['Approve'] }],
        by: { id, via: 'web' },
      })
    },
  })
  try {
    const answer = await seam.ask({ questions: plan, approvals: 2, timeoutMs: 10_000 })
    const [record] = await seam.history({ limit: 1 })
    return { answer, told, by: record?.outcome?.by.map(({ id }) => id) }
  } finally {
    await seam.close()
  }
}

/** A keyed ask with each key no store keeps as given: how each was refused, and what the store holds after. */
async function askWithKeys(store: AskStore) {
  const seam = createUserQuestions({ store })
  seam.registerProvider({
    ask: () => Promise.resolve({ answers: [{ id: 'go', selected: ['Yes'] }] }),
  })
  const questions = [{ id: 'go', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }]
  try {
    const refusals: Array<{ code: string; field: unknown }> = []
    for (const key of ['deploy\u0000', 'deploy\ud800', 'deploy\udbff']) {
      const error = (await seam
        .ask({ key, questions })
        .catch((e: unknown) => e)) as UserQuestionError
      refusals.push({ code: error.code, field: error.details?.field })
    }
    return { refusals, asks: await seam.history({}) }
  } finally {
    await seam.close()
  }
}

function expectApprovalsCounted(result: Awaited<ReturnType<typeof approveWithNulFirst>>) {
  expect(result.answer).toEqual({ answers: [{ id: 'plan', selected: ['Approve'] }] })
  expect(result.told).toEqual(['alice\u0000: BAD_ANSWER', 'bob: counted', 'carol: accepted'])
  expect(result.by).toEqual(['bob', 'carol'])
}

function expectKeysRefused(result: Awaited<ReturnType<typeof askWithKeys>>) {
  const refused = { code: 'INVALID_REQUEST', field: 'key' }
  expect(result.refusals).toEqual([refused, refused, refused])
  expect(result.asks).toEqual([])
}

describe('regression: ids a store cannot keep as given', () => {
  it('memory store: the approval is refused at once and the next two settle the ask', async () => {
    expectApprovalsCounted(await approveWithNulFirst(createMemoryStore()))
  })

  it('memory store: each such key is INVALID_REQUEST, as on every store', async () => {
    expectKeysRefused(await askWithKeys(createMemoryStore()))
  })

  describeDialects('a durable store', (storage) => {
    it('an approval whose responder id holds a NUL is refused at once, not retried until the deadline', async () => {
      const { open } = await storage()
      expectApprovalsCounted(await approveWithNulFirst(open()))
    }, 30_000)

    it('a key with a NUL or an unpaired surrogate is INVALID_REQUEST, and nothing is written', async () => {
      const { open } = await storage()
      expectKeysRefused(await askWithKeys(open()))
    }, 30_000)
  })
})
