import { describe, expect, it } from 'vitest'
import { UserQuestionError } from '../../../src/protocol/index.js'
import type {
  AskUserQuestionItem,
  ProviderRequest,
  ProviderSettlement,
  UserQuestionProvider,
} from '../../../src/protocol/index.js'
import { createRelay } from '../../../src/providers/web/index.js'
import { outcomeError, settledElsewhereOutcome } from '../../../src/vocabulary/index.js'
import type { ApprovalCount, Responder } from '../../../src/vocabulary/index.js'
import { fakeClient, flush, questions, respond, track, validAnswer } from './relay-harness.js'
import type { FakeClient } from './relay-harness.js'

/*
 * The relay as the seam sees it (DESIGN §12), driven by a fake seam: each
 * test plays the calls the seam makes (provider.ask with answerers and
 * approvals, the settlement's verdict, provider.ask again after a counted
 * vote) and reads what the relay's clients are sent.
 */

const planQuestion: AskUserQuestionItem = {
  id: 'plan',
  question: 'Ship this plan?',
  detail: '1. Migrate\n2. Deploy',
  options: [{ label: 'Approve' }, { label: 'Revise' }],
  intent: { kind: 'plan-review', approve: 'Approve' },
}
const approve = { answers: [{ id: 'plan', selected: ['Approve'] }] }
const revise = { answers: [{ id: 'plan', selected: ['Revise'] }] }

const people: Record<string, Responder> = {
  ana: { id: 'ana', name: 'Ana', roles: ['ops'], via: 'web' },
  bo: { id: 'bo', via: 'web' },
  cy: { id: 'cy', roles: ['ops'], via: 'web' },
}

interface PersonClient extends FakeClient {
  person?: Responder
}

function person(id?: string): PersonClient {
  const client: PersonClient = fakeClient(id ?? 'anonymous')
  if (id !== undefined) client.person = people[id] as Responder
  return client
}

/** A relay on a fake seam: `ask` is the seam presenting an ask, with the verdict to tell later. */
function setup() {
  let provider: UserQuestionProvider | undefined
  const relay = createRelay<PersonClient>(
    {
      registerProvider(registered) {
        provider = registered
        return () => undefined
      },
    },
    { responderOf: (client) => client.person },
  )
  const ask = (
    askId: string,
    extra: Partial<Pick<ProviderRequest, 'answerers' | 'approvals' | 'questions'>> = {},
  ) => {
    let tell!: (verdict: ProviderSettlement) => void
    const settlement = new Promise<ProviderSettlement>((resolve) => (tell = resolve))
    const controller = new AbortController()
    const answered = track(
      (provider as UserQuestionProvider).ask({
        askId,
        questions,
        signal: controller.signal,
        settlement,
        ...extra,
      }),
    )
    return { answered, tell, controller }
  }
  return { relay, ask }
}

const count = (required: number, ...given: string[]): ApprovalCount => ({
  required,
  given: given.map((id) => people[id] as Responder),
})

describe('the relay and who answers', () => {
  it("resolves with by from the answering connection's person, ignoring a by in the frame", async () => {
    const { relay, ask } = setup()
    const ana = person('ana')
    const connection = relay.connect(ana)
    const { answered, tell } = ask('a1')
    connection.receive(
      JSON.stringify({
        type: 'question/respond',
        rpcId: 'a1',
        result: { ok: true, value: { ...validAnswer, by: { id: 'mallory', via: 'web' } } },
      }),
    )
    await flush()
    expect(answered.value).toMatchObject({ by: people.ana })
    tell({ status: 'accepted' })
    await flush()
    expect(ana.framesOf('receipt')).toEqual([{ type: 'receipt', rpcId: 'a1', accepted: true }])
  })

  it('omits by for an anonymous client', async () => {
    const { relay, ask } = setup()
    const connection = relay.connect(person())
    const { answered } = ask('a1')
    connection.receive(respond('a1'))
    await flush()
    expect(answered.value).not.toHaveProperty('by')
  })

  it('says hello to a client whose person is known, before any ask', () => {
    const { relay, ask } = setup()
    ask('a1')
    const ana = person('ana')
    relay.connect(ana)
    const anonymous = person()
    relay.connect(anonymous)
    expect(ana.frames.map((frame) => frame.type)).toEqual(['hello', 'question/requested'])
    expect(ana.frames[0]).toEqual({
      type: 'hello',
      user: { id: 'ana', name: 'Ana', roles: ['ops'] },
    })
    expect(anonymous.framesOf('hello')).toEqual([])
  })

  it('shows an ask with answerers only to the people it admits, by id or role, live and on replay', async () => {
    const { relay, ask } = setup()
    const ana = person('ana')
    const bo = person('bo')
    const anonymous = person()
    for (const client of [ana, bo, anonymous]) relay.connect(client)
    ask('ops-only', { answerers: ['role:ops'] })
    ask('bo-only', { answerers: ['bo'] })
    const cy = person('cy')
    relay.connect(cy)
    const seen = (client: FakeClient) => client.framesOf('question/requested').map((f) => f.rpcId)
    expect(seen(ana)).toEqual(['ops-only'])
    expect(seen(cy)).toEqual(['ops-only'])
    expect(seen(bo)).toEqual(['bo-only'])
    expect(seen(anonymous)).toEqual([])
    expect(relay.asksFor(bo).map((frame) => frame.rpcId)).toEqual(['bo-only'])
    expect(relay.asksFor(anonymous)).toEqual([])
  })

  it('refuses a response from someone the ask does not admit with forbidden; the ask stays pending', async () => {
    const { relay, ask } = setup()
    const bo = person('bo')
    const connection = relay.connect(bo)
    const { answered } = ask('ops-only', { answerers: ['role:ops'] })
    connection.receive(respond('ops-only'))
    await flush()
    expect(bo.framesOf('receipt')).toEqual([
      { type: 'receipt', rpcId: 'ops-only', accepted: false, reason: 'forbidden' },
    ])
    expect(answered.settled).toBe(0)
    expect(await relay.respond(person(), 'ops-only', { ok: true, value: validAnswer })).toEqual({
      accepted: false,
      reason: 'forbidden',
    })
    expect(relay.pending().map((pending) => pending.rpcId)).toEqual(['ops-only'])
  })

  it('sends the approvals so far on question/requested, as ids', () => {
    const { relay, ask } = setup()
    const bo = person('bo')
    relay.connect(bo)
    ask('plan', { questions: [planQuestion], approvals: count(2, 'ana') })
    expect(bo.framesOf('question/requested')[0]).toMatchObject({
      rpcId: 'plan',
      approvals: { required: 2, given: ['ana'] },
    })
  })

  it('accepts a counted vote with its count, and keeps the ask pending without resolved; the next presentation shows the new count', async () => {
    const { relay, ask } = setup()
    const ana = person('ana')
    const bo = person('bo')
    const anaLink = relay.connect(ana)
    relay.connect(bo)
    const first = ask('plan', { questions: [planQuestion], approvals: count(2) })
    anaLink.receive(respond('plan', approve))
    await flush()
    expect(first.answered.value).toEqual({ ...approve, by: people.ana })
    first.tell({ status: 'counted', approvals: count(2, 'ana') })
    await flush()
    expect(ana.framesOf('receipt')).toEqual([
      {
        type: 'receipt',
        rpcId: 'plan',
        accepted: true,
        counted: { required: 2, given: ['ana'] },
      },
    ])
    for (const client of [ana, bo]) expect(client.framesOf('question/resolved')).toEqual([])
    expect(relay.pending().map((pending) => pending.rpcId)).toEqual(['plan'])
    // The seam presents the ask again with the new count.
    ask('plan', { questions: [planQuestion], approvals: count(2, 'ana') })
    for (const client of [ana, bo]) {
      expect(client.framesOf('question/requested').map((frame) => frame.approvals)).toEqual([
        { required: 2, given: [] },
        { required: 2, given: ['ana'] },
      ])
    }
  })

  it('an old entry ending does not remove the new entry of the same ask, nor release its waiters', async () => {
    const { relay, ask } = setup()
    const ana = person('ana')
    const bo = person('bo')
    const anaLink = relay.connect(ana)
    const first = ask('plan', { questions: [planQuestion], approvals: count(2) })
    anaLink.receive(respond('plan', approve))
    await flush()
    // Held by the first entry while Ana's approval is committed.
    const cyReceipt = track(relay.respond(person('cy'), 'plan', { ok: true, value: approve }))
    // The seam presents again before it tells the first presentation its verdict.
    const second = ask('plan', { questions: [planQuestion], approvals: count(2, 'ana') })
    const boReceipt = relay.respond(bo, 'plan', { ok: true, value: approve })
    await flush()
    expect(second.answered.value).toEqual({ ...approve, by: people.bo })
    first.tell({ status: 'counted', approvals: count(2, 'ana') })
    await flush()
    // The first entry has no presentation left to hand it to: it does not wait for ever.
    expect(cyReceipt.value).toEqual({ accepted: false, reason: 'not-pending' })
    first.controller.abort(new UserQuestionError('presented again', 'ASK_ABORTED'))
    await flush()
    expect(relay.pending().map((pending) => pending.rpcId)).toEqual(['plan'])
    const receipt = track(boReceipt)
    await flush()
    expect(receipt.settled).toBe(0)
    second.tell({ status: 'accepted' })
    await flush()
    expect(receipt.value).toEqual({ accepted: true })
    expect(ana.framesOf('question/resolved')).toEqual([
      { type: 'question/resolved', rpcId: 'plan', outcome: 'answered' },
    ])
  })

  it('refuses a second approval by the same person with already-voted, at once; the ask stays pending', async () => {
    const { relay, ask } = setup()
    const ana = person('ana')
    const connection = relay.connect(ana)
    const { answered } = ask('plan', { questions: [planQuestion], approvals: count(2, 'ana') })
    connection.receive(respond('plan', approve))
    await flush()
    expect(ana.framesOf('receipt')).toEqual([
      { type: 'receipt', rpcId: 'plan', accepted: false, reason: 'already-voted' },
    ])
    expect(answered.settled).toBe(0)
    expect(await relay.respond(ana, 'plan', { ok: true, value: approve })).toEqual({
      accepted: false,
      reason: 'already-voted',
    })
    // A veto from someone who approved is not a vote: it goes to the seam.
    connection.receive(respond('plan', revise))
    await flush()
    expect(answered.value).toEqual({ ...revise, by: people.ana })
  })

  it.each([
    ['already-voted', 'already-voted'],
    ['forbidden', 'forbidden'],
  ] as const)(
    "a seam's refusal for %s gives that receipt and keeps the ask pending, without resolved",
    async (reason, receiptReason) => {
      const { relay, ask } = setup()
      const ana = person('ana')
      const bo = person('bo')
      const connection = relay.connect(ana)
      relay.connect(bo)
      const { tell } = ask('plan', { questions: [planQuestion], approvals: count(2) })
      connection.receive(respond('plan', approve))
      await flush()
      tell({
        status: 'refused',
        error: new UserQuestionError('refused', 'BAD_ANSWER', { details: { reason } }),
      })
      await flush()
      expect(ana.framesOf('receipt')).toEqual([
        { type: 'receipt', rpcId: 'plan', accepted: false, reason: receiptReason },
      ])
      for (const client of [ana, bo]) expect(client.framesOf('question/resolved')).toEqual([])
    },
  )

  it('holds another person’s approval during the pause after a refusal, and hands it to the next presentation', async () => {
    const { relay, ask } = setup()
    const [ana, bo] = [person('ana'), person('bo')]
    const anaLink = relay.connect(ana)
    relay.connect(bo)
    // This console's count is stale: the store holds Ana's approval already.
    const first = ask('plan', { questions: [planQuestion], approvals: count(2) })
    const refused = new UserQuestionError('refused', 'BAD_ANSWER', {
      details: { reason: 'already-voted' },
    })
    anaLink.receive(respond('plan', approve))
    await flush()
    first.tell({ status: 'refused', error: refused })
    await flush()
    // The seam pauses before it shows the ask again: Bo's approval waits, it is not refused.
    const boReceipt = track(relay.respond(bo, 'plan', { ok: true, value: approve }))
    await flush()
    expect(boReceipt.settled).toBe(0)
    expect(relay.pending().map((pending) => pending.rpcId)).toEqual(['plan'])
    const second = ask('plan', { questions: [planQuestion], approvals: count(2, 'ana') })
    await flush()
    expect(second.answered.value).toEqual({ ...approve, by: people.bo })
    second.tell({ status: 'accepted' })
    await flush()
    expect(boReceipt.value).toEqual({ accepted: true })
    for (const client of [ana, bo]) {
      expect(client.framesOf('question/requested')).toHaveLength(2)
      expect(client.framesOf('question/resolved')).toEqual([
        { type: 'question/resolved', rpcId: 'plan', outcome: 'answered' },
      ])
    }
  })

  it('an ask that ends while it waits to be shown again: what it held is not-pending, every client hears how it ended', async () => {
    const { relay, ask } = setup()
    const [ana, bo] = [person('ana'), person('bo')]
    const anaLink = relay.connect(ana)
    relay.connect(bo)
    const first = ask('plan', { questions: [planQuestion], approvals: count(3) })
    anaLink.receive(respond('plan', approve))
    await flush()
    first.tell({ status: 'counted', approvals: count(3, 'ana') })
    await flush()
    const boReceipt = track(relay.respond(bo, 'plan', { ok: true, value: approve }))
    // Another console's veto is committed: the presentation the vote was counted on comes down.
    const vetoed = {
      status: 'rejected' as const,
      error: { code: 'ASK_CANCELLED' as const, message: 'm' },
    }
    first.controller.abort(outcomeError(settledElsewhereOutcome(vetoed).error))
    await flush()
    expect(boReceipt.value).toEqual({ accepted: false, reason: 'not-pending' })
    expect(relay.pending()).toEqual([])
    for (const client of [ana, bo]) {
      expect(client.framesOf('question/resolved')).toEqual([
        { type: 'question/resolved', rpcId: 'plan', outcome: 'cancelled' },
      ])
    }
  })

  it('hands an HTTP-style response the count of a counted vote', async () => {
    const { relay, ask } = setup()
    const { tell } = ask('plan', { questions: [planQuestion], approvals: count(3, 'bo') })
    const receipt = track(relay.respond(person('ana'), 'plan', { ok: true, value: approve }))
    await flush()
    tell({ status: 'counted', approvals: count(3, 'bo', 'ana') })
    await flush()
    expect(receipt.value).toEqual({
      accepted: true,
      counted: { required: 3, given: ['bo', 'ana'] },
    })
  })
})
