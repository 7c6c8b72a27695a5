import { afterEach, describe, expect, it } from 'vitest'
import {
  UserQuestionError,
  createMemoryStore,
  createUserQuestions,
} from '../../src/protocol/index.js'
import type {
  AskUserQuestionItem,
  ProviderSettlement,
  Responder,
  UserQuestions,
} from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import type { ControllableProvider } from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'

/** DESIGN §12 on the memory store: who may answer, approvals counted as votes, and the record. */

const plan: AskUserQuestionItem[] = [
  {
    id: 'plan',
    question: 'Ship the migration?',
    detail: '1. back up\n2. migrate',
    options: [{ label: 'Approve' }, { label: 'Revise' }],
    intent: { kind: 'plan-review', approve: 'Approve' },
  },
]
const approve = { answers: [{ id: 'plan', selected: ['Approve'] }] }
const revise = { answers: [{ id: 'plan', selected: ['Revise'] }] }
const alice: Responder = { id: 'alice', name: 'Alice', roles: ['lead'], via: 'web' }
const bob: Responder = { id: 'bob', via: 'web' }
const mallory: Responder = { id: 'mallory', via: 'web' }

const seams: UserQuestions[] = []
afterEach(async () => {
  await Promise.all(seams.splice(0).map((seam) => seam.close()))
})

function presenting(): { seam: UserQuestions; provider: ControllableProvider } {
  const seam = createUserQuestions({ store: createMemoryStore() })
  seams.push(seam)
  const provider = createControllableProvider()
  seam.registerProvider(provider)
  return { seam, provider }
}

/** The provider's `index`th call, answered with `answer` by `by`; resolves with what it was told. */
async function answerAs(
  provider: ControllableProvider,
  index: number,
  answer: object,
  by?: Responder,
): Promise<ProviderSettlement> {
  const call = await provider.call(index)
  call.resolve(by === undefined ? answer : { ...answer, by })
  return call.request.settlement as Promise<ProviderSettlement>
}

describe('§12 requests: answerers and approvals are checked', () => {
  const seam = createUserQuestions()
  const refused = (request: object) =>
    seam.ask({ questions: plan, ...request }).catch((error: unknown) => error)

  it.each([
    [{ approvals: 0 }, 'approvals'],
    [{ approvals: 1.5 }, 'approvals'],
    [{ approvals: 1e9 }, 'approvals'],
    [{ approvals: '2' }, 'approvals'],
    [{ answerers: [] }, 'answerers'],
    [{ answerers: ['role:'] }, 'answerers'],
    [{ answerers: [' '] }, 'answerers'],
    [{ answerers: 'alice' }, 'answerers'],
  ])('%j is INVALID_REQUEST naming %s', async (request, field) => {
    await expect(refused(request)).resolves.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field },
    })
  })

  it('approvals on an ask that is not one plan review is INVALID_REQUEST', async () => {
    const error = await seam
      .ask({ questions: [{ id: 'q', question: 'Why?' }], approvals: 2 })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'approvals' } })
  })
})

describe('§12 answerers', () => {
  it('an answer from someone the ask does not admit is refused, and the ask stays pending', async () => {
    const { seam, provider } = presenting()
    const asked = seam.ask({ questions: plan, answerers: ['alice', 'role:ops'] })
    await expect(answerAs(provider, 0, approve, mallory)).resolves.toMatchObject({
      status: 'refused',
      error: { code: 'BAD_ANSWER', details: { reason: 'forbidden' } },
    })
    expect(seam.pending()).toHaveLength(1)
    // A provider that names nobody cannot answer it either.
    await expect(answerAs(provider, 1, approve)).resolves.toMatchObject({ status: 'refused' })
    expect((await provider.call(2)).request.answerers).toEqual(['alice', 'role:ops'])
    await expect(
      answerAs(provider, 2, approve, { id: 'olga', roles: ['ops'], via: 'web' }),
    ).resolves.toEqual({
      status: 'accepted',
    })
    await expect(asked).resolves.toEqual(approve)
    const [record] = await seam.history({ askId: provider.calls[0]!.request.askId })
    expect(record?.outcome).toMatchObject({ status: 'answered', by: [{ id: 'olga' }] })
    expect(record?.events.map((event) => event.type)).toEqual([
      'admitted',
      'presented',
      'refused',
      'presented',
      'refused',
      'presented',
      'settled',
    ])
    expect(record?.events[2]).toMatchObject({ by: mallory, detail: { reason: 'forbidden' } })
  })

  it('a UI that cancels after a refusal, quoting it, cancels the ask: ASK_CANCELLED, not the refusal', async () => {
    const { seam, provider } = presenting()
    const asked = seam
      .ask({ questions: plan, answerers: ['alice'] })
      .catch((error: unknown) => error)
    const told = await answerAs(provider, 0, approve, mallory)
    expect(told).toMatchObject({ status: 'refused', error: { code: 'BAD_ANSWER' } })
    const quoted = (told as { error: UserQuestionError }).error.message
    const cancelled = new UserQuestionError(quoted, 'ASK_CANCELLED')
    ;(await provider.call(1)).reject(cancelled)
    const error = await asked
    expect(error).toMatchObject({ code: 'ASK_CANCELLED', message: quoted })
    expect(error).toBe(cancelled)
  })

  it('a malformed responder is BAD_ANSWER and names the field', async () => {
    const { seam, provider } = presenting()
    const asked = seam.ask({ questions: plan }).catch((error: unknown) => error)
    const call = await provider.call(0)
    call.resolve({ ...approve, by: { id: ' ', via: 'web' } })
    await expect(asked).resolves.toMatchObject({ code: 'BAD_ANSWER', details: { field: 'by' } })
    const big = createControllableProvider()
    const other = createUserQuestions()
    seams.push(other)
    other.registerProvider(big)
    const second = other.ask({ questions: plan }).catch((error: unknown) => error)
    ;(await big.call(0)).resolve({
      ...approve,
      by: { id: 'x', name: 'n'.repeat(10_000_000), via: 'web' },
    })
    await expect(second).resolves.toMatchObject({ code: 'BAD_ANSWER' })
  })
})

describe('§12 approvals', () => {
  it('the second distinct approval settles the ask; a repeat is already-voted; by lists both', async () => {
    const { seam, provider } = presenting()
    const asked = seam.ask({ questions: plan, approvals: 2, key: 'deploy-1' })
    expect((await provider.call(0)).request.approvals).toEqual({ required: 2, given: [] })
    await expect(answerAs(provider, 0, approve, alice)).resolves.toEqual({
      status: 'counted',
      approvals: { required: 2, given: [alice] },
    })
    expect((await provider.call(1)).request.approvals).toEqual({ required: 2, given: [alice] })
    await expect(answerAs(provider, 1, approve, alice)).resolves.toMatchObject({
      status: 'refused',
      error: { code: 'BAD_ANSWER', details: { reason: 'already-voted' } },
    })
    await expect(answerAs(provider, 2, approve, bob)).resolves.toEqual({ status: 'accepted' })
    await expect(asked).resolves.toEqual(approve)
    const [record] = await seam.history({ key: 'deploy-1' })
    expect(record?.outcome).toEqual({ status: 'answered', answer: approve, by: [alice, bob] })
    expect(record?.digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(record?.events.filter((event) => event.type === 'vote').map((e) => e.by?.id)).toEqual([
      'alice',
      'bob',
    ])
  })

  it('an approval that names nobody is not a vote: refused as forbidden, and the ask stays pending', async () => {
    const { seam, provider } = presenting()
    void seam.ask({ questions: plan, approvals: 2 }).catch(() => undefined)
    await expect(answerAs(provider, 0, approve)).resolves.toMatchObject({
      status: 'refused',
      error: { code: 'BAD_ANSWER', details: { reason: 'forbidden' } },
    })
    expect((await provider.call(1)).request.approvals).toEqual({ required: 2, given: [] })
    expect(seam.pending()).toHaveLength(1)
  })

  it('a refusal from an admitted responder ends the ask at once (a veto)', async () => {
    const { seam, provider } = presenting()
    const asked = seam.ask({ questions: plan, approvals: 3 })
    await answerAs(provider, 0, approve, alice)
    await expect(answerAs(provider, 1, revise, bob)).resolves.toEqual({ status: 'accepted' })
    await expect(asked).resolves.toEqual(revise)
    const [record] = await seam.history({})
    expect(record?.outcome).toMatchObject({ status: 'answered', by: [bob] })
  })

  it('a UI reloaded after an approval was counted is shown the count the store holds', async () => {
    const seam = createUserQuestions({ providerGraceMs: 60_000 })
    seams.push(seam)
    const first = createControllableProvider()
    const dispose = seam.registerProvider(first)
    const asked = seam.ask({ questions: plan, approvals: 2 })
    await answerAs(first, 0, approve, alice)
    await first.call(1)
    dispose()
    const reloaded = createControllableProvider()
    seam.registerProvider(reloaded)
    expect((await reloaded.call(0)).request.approvals).toEqual({ required: 2, given: [alice] })
    await expect(answerAs(reloaded, 0, approve, bob)).resolves.toEqual({ status: 'accepted' })
    await expect(asked).resolves.toEqual(approve)
  })

  it('a console opened after an approval was counted in another process shows the count', async () => {
    const store = createMemoryStore()
    const worker = createUserQuestions({ store })
    const here = createUserQuestions({ store })
    const later = createUserQuestions({ store })
    seams.push(worker, here, later)
    const provider = createControllableProvider()
    here.registerProvider(provider)
    await settle()
    const asked = worker.ask({ questions: plan, approvals: 2 })
    await answerAs(provider, 0, approve, alice)
    const opened = createControllableProvider()
    later.registerProvider(opened)
    expect((await opened.call(0)).request.approvals).toEqual({ required: 2, given: [alice] })
    await expect(answerAs(opened, 0, approve, bob)).resolves.toEqual({ status: 'accepted' })
    await expect(asked).resolves.toEqual(approve)
  })

  it.each([
    ['rejects', () => Promise.reject(new Error('disk I/O error'))],
    [
      'throws at once',
      () => {
        throw new Error('disk I/O error')
      },
    ],
  ])(
    'an ask whose votes cannot be read (the store %s) is shown anyway, with the count this seam knows',
    async (_name, votes) => {
      const store = createMemoryStore()
      store.votes = votes
      const seam = createUserQuestions({ store })
      seams.push(seam)
      const provider = createControllableProvider()
      seam.registerProvider(provider)
      const asked = seam.ask({ questions: plan, approvals: 2 })
      expect((await provider.call(0)).request.approvals).toEqual({ required: 2, given: [] })
      await answerAs(provider, 0, approve, alice)
      expect((await provider.call(1)).request.approvals).toEqual({ required: 2, given: [alice] })
      await answerAs(provider, 1, approve, bob)
      await expect(asked).resolves.toEqual(approve)
    },
  )

  it('an ask that needs no approvals is shown without reading any votes', async () => {
    const store = createMemoryStore()
    // A store that never answers the read: only an ask that counts approvals may wait on it.
    store.votes = () => new Promise(() => undefined)
    const seam = createUserQuestions({ store })
    seams.push(seam)
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const asked = seam.ask({ questions: plan })
    const call = await provider.call(0)
    expect(call.request.approvals).toBeUndefined()
    call.resolve(approve)
    await expect(asked).resolves.toEqual(approve)
  })

  it('a history query for an unknown key is an empty list', async () => {
    const { seam } = presenting()
    await expect(seam.history({ key: 'nobody-asked' })).resolves.toEqual([])
    await expect(seam.history({ limit: 0 })).rejects.toThrow(TypeError)
  })
})
