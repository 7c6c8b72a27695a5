/**
 * relayAskMachine on its own: the receipts it decides in each state, the
 * responses it holds between presentations, and the outcome it ends with. test/providers/web/relay.test.ts runs the same rules
 * through the relay and its wire; this file is the machine's own table.
 */
import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import { relayAskMachine, responseEvent } from '../../src/machines/index.js'
import type { RelayAskEmitted, RelayAskEvent, RelayResponse } from '../../src/machines/index.js'
import {
  callerAbortOutcome,
  handedOverOutcome,
  settledElsewhereOutcome,
  timeoutOutcome,
} from '../../src/vocabulary/index.js'

const questions = [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }]
const answer: RelayResponse = {
  kind: 'answer',
  answer: { answers: [{ id: 'q', selected: ['Yes'] }] },
}
const cancel: RelayResponse = {
  kind: 'cancel',
  error: { code: 'ASK_CANCELLED', message: 'dismissed' },
}
const invalid: RelayResponse = { kind: 'invalid', message: 'q: "Maybe" is not an option' }
const forbidden: RelayResponse = { kind: 'forbidden' }
const respond = (clientId: string, response: RelayResponse): RelayAskEvent =>
  responseEvent(clientId, response)

function relayed() {
  const actor = createActor(relayAskMachine, {
    input: { askId: 'a1', sessionId: 'agent-1', questions },
  })
  const emitted: RelayAskEmitted[] = []
  actor.on('*', (event) => emitted.push(event))
  actor.start()
  return { actor, emitted }
}

/** A relayed ask whose client `alice` answered with `response`, now being committed. */
function committing(response: RelayResponse = answer) {
  const run = relayed()
  run.actor.send(respond('alice', response))
  expect(run.actor.getSnapshot().value).toBe('committing')
  run.emitted.length = 0
  return run
}

describe('relayAskMachine: while pending', () => {
  it('a client that may not see the ask is refused forbidden, and the ask stays pending', () => {
    const { actor, emitted } = relayed()
    actor.send(respond('mallory', forbidden))
    expect(emitted).toEqual([{ type: 'receipt', clientId: 'mallory', reason: 'forbidden' }])
    expect(actor.getSnapshot().value).toBe('pending')
  })

  it('a second approval by the same person is already-voted, and the ask stays pending', () => {
    const { actor, emitted } = relayed()
    actor.send(respond('alice', { kind: 'already-voted' }))
    expect(emitted).toEqual([{ type: 'receipt', clientId: 'alice', reason: 'already-voted' }])
    expect(actor.getSnapshot().value).toBe('pending')
  })

  it('an invalid response is bad-response with the rule broken, and the ask stays pending', () => {
    const { actor, emitted } = relayed()
    actor.send(respond('alice', invalid))
    actor.send(respond('alice', invalid))
    expect(emitted).toEqual([
      { type: 'receipt', clientId: 'alice', reason: 'bad-response', message: invalid.message },
      { type: 'receipt', clientId: 'alice', reason: 'bad-response', message: invalid.message },
    ])
    expect(actor.getSnapshot().value).toBe('pending')
  })

  it('a bad-response carries the validation error’s details when it has them', () => {
    const { actor, emitted } = relayed()
    const details = { questionId: 'q', rule: 'option' }
    actor.send(respond('alice', { ...invalid, details }))
    expect(emitted).toEqual([
      {
        type: 'receipt',
        clientId: 'alice',
        reason: 'bad-response',
        message: invalid.message,
        details,
      },
    ])
  })

  it.each([
    ['an answer', answer],
    ['a cancel', cancel],
  ])(
    'the first valid response, %s, settles the provider and gets no receipt yet',
    (_name, response) => {
      const { actor, emitted } = relayed()
      actor.send(respond('alice', response))
      expect(emitted).toEqual([{ type: 'provider.settled', response }])
      expect(actor.getSnapshot().context).toMatchObject({
        responder: 'alice',
        responded: response.kind,
      })
    },
  )

  it.each([
    ['the deadline', timeoutOutcome({ deadline: 9, startedAt: 1 }).error, 'timed-out'],
    [
      'any other ending',
      { code: 'ASK_ABORTED', message: 'gone', details: { reason: 'caller-aborted' } },
      'aborted',
    ],
    [
      'a settlement elsewhere the store no longer names',
      { code: 'ASK_ABORTED', message: 'gone', details: { reason: 'settled-elsewhere' } },
      'aborted',
    ],
    [
      'an answer elsewhere',
      settledElsewhereOutcome({ status: 'answered', answer: answer.answer }).error,
      'answered',
    ],
    [
      'a dismissal elsewhere',
      settledElsewhereOutcome({ status: 'rejected', error: cancel.error }).error,
      'cancelled',
    ],
    [
      'a misfit answer elsewhere',
      settledElsewhereOutcome({ status: 'rejected', error: { code: 'BAD_ANSWER', message: 'm' } })
        .error,
      'aborted',
    ],
  ] as const)('ended by %s: resolved as %s, no receipt', (_name, error, outcome) => {
    const { actor, emitted } = relayed()
    actor.send({ type: 'ask.ended', error })
    expect(actor.getSnapshot().output).toEqual({ outcome })
    expect(emitted).toEqual([])
  })

  it('handed over to another provider: ends with no outcome, since the ask did not end', () => {
    const { actor, emitted } = relayed()
    actor.send({ type: 'ask.ended', error: handedOverOutcome().error })
    expect(actor.getSnapshot().status).toBe('done')
    expect(actor.getSnapshot().output).toEqual({ outcome: undefined })
    expect(emitted).toEqual([])
  })
})

describe('relayAskMachine: while the response is committed', () => {
  it('another answer or cancel is held for its turn; the edge’s refusals are told at once', () => {
    const { actor, emitted } = committing()
    actor.send(respond('bob', answer))
    actor.send(respond('alice', cancel))
    actor.send(respond('bob', invalid))
    actor.send(respond('carol', { kind: 'already-voted' }))
    actor.send(respond('mallory', forbidden))
    expect(emitted).toEqual([
      { type: 'receipt', clientId: 'bob', reason: 'bad-response', message: invalid.message },
      { type: 'receipt', clientId: 'carol', reason: 'already-voted' },
      { type: 'receipt', clientId: 'mallory', reason: 'forbidden' },
    ])
    expect(actor.getSnapshot().value).toBe('committing')
    expect(actor.getSnapshot().context.held).toEqual([
      { clientId: 'bob', response: answer },
      { clientId: 'alice', response: cancel },
    ])
  })

  it('a response held while the committed one ended the ask is not-pending, after the responder’s receipt', () => {
    const { actor, emitted } = committing()
    actor.send(respond('bob', answer))
    actor.send({ type: 'settlement.accepted' })
    expect(emitted).toEqual([
      { type: 'receipt', clientId: 'alice' },
      { type: 'receipt', clientId: 'bob', reason: 'not-pending' },
    ])
    expect(actor.getSnapshot().output).toEqual({ outcome: 'answered' })
  })

  it.each([
    [
      'a misfit',
      { type: 'settlement.refused', error: { code: 'BAD_ANSWER', message: 'm' } },
      'bad-response',
    ],
    ['the ask’s ending', { type: 'ask.ended', error: callerAbortOutcome().error }, 'not-pending'],
  ] as const)(
    'a response held when %s ends the ask is not-pending',
    (_name, event, responderReason) => {
      const { actor, emitted } = committing()
      actor.send(respond('bob', answer))
      actor.send(event)
      expect(emitted).toMatchObject([
        { type: 'receipt', clientId: 'alice', reason: responderReason },
        { type: 'receipt', clientId: 'bob', reason: 'not-pending' },
      ])
      expect(actor.getSnapshot().output).toEqual({ outcome: 'aborted' })
    },
  )

  it('the responder hears accepted only once the seam says the store committed its answer', () => {
    const { actor, emitted } = committing()
    expect(emitted).toEqual([])
    actor.send({ type: 'settlement.accepted' })
    expect(emitted).toEqual([{ type: 'receipt', clientId: 'alice' }])
    expect(actor.getSnapshot().output).toEqual({ outcome: 'answered' })
  })

  it('a cancel the store committed is accepted and resolves as cancelled', () => {
    const { actor, emitted } = committing(cancel)
    actor.send({ type: 'settlement.accepted' })
    expect(emitted).toEqual([{ type: 'receipt', clientId: 'alice' }])
    expect(actor.getSnapshot().output).toEqual({ outcome: 'cancelled' })
  })

  it('an answer the seam found a misfit is bad-response for its client, and the ask resolves aborted', () => {
    const { actor, emitted } = committing()
    actor.send({
      type: 'settlement.refused',
      error: {
        code: 'BAD_ANSWER',
        message: 'q: one label at most',
        details: { questionId: 'q', rule: 'single' },
      },
    })
    expect(emitted).toEqual([
      {
        type: 'receipt',
        clientId: 'alice',
        reason: 'bad-response',
        message: 'q: one label at most',
        details: { questionId: 'q', rule: 'single' },
      },
    ])
    expect(actor.getSnapshot().output).toEqual({ outcome: 'aborted' })
  })

  it('a refusal that is not a misfit waits for the ask’s ending, which tells the responder not-pending', () => {
    const { actor, emitted } = committing()
    actor.send({
      type: 'settlement.refused',
      error: { code: 'ASK_ABORTED', message: 'lost' },
    })
    expect(emitted).toEqual([])
    expect(actor.getSnapshot().value).toBe('committing')
    actor.send({
      type: 'ask.ended',
      error: { code: 'ASK_ABORTED', message: 'lost', details: { reason: 'settled-elsewhere' } },
    })
    expect(emitted).toEqual([{ type: 'receipt', clientId: 'alice', reason: 'not-pending' }])
    expect(actor.getSnapshot().output).toEqual({ outcome: 'aborted' })
  })

  it('the deadline while committing: the responder is not-pending and the ask resolves timed-out', () => {
    const { actor, emitted } = committing()
    actor.send({ type: 'ask.ended', error: timeoutOutcome({ deadline: 9, startedAt: 1 }).error })
    expect(emitted).toEqual([{ type: 'receipt', clientId: 'alice', reason: 'not-pending' }])
    expect(actor.getSnapshot().output).toEqual({ outcome: 'timed-out' })
  })
})

describe('relayAskMachine: exact receipts', () => {
  it('starts pending with the ask it was given and no responder', () => {
    const { actor } = relayed()
    expect(actor.getSnapshot().context).toStrictEqual({
      askId: 'a1',
      sessionId: 'agent-1',
      questions,
      responder: undefined,
      responded: undefined,
      held: [],
      outcome: undefined,
    })
  })

  it('an invalid response without details carries no details key', () => {
    const { actor, emitted } = relayed()
    actor.send(respond('alice', invalid))
    expect(emitted).toStrictEqual([
      { type: 'receipt', clientId: 'alice', reason: 'bad-response', message: invalid.message },
    ])
  })

  it('a counted vote tells its client the count, and the ask waits to be presented again', () => {
    const { actor, emitted } = committing()
    const approvals = { required: 2, given: [{ id: 'alice', via: 'web' }] }
    actor.send({ type: 'settlement.counted', approvals })
    expect(emitted).toStrictEqual([{ type: 'receipt', clientId: 'alice', counted: approvals }])
    expect(actor.getSnapshot().value).toBe('awaitingPresentation')
    expect(actor.getSnapshot().context).toMatchObject({ responder: undefined, outcome: undefined })
  })

  it('a misfit without details carries no details key', () => {
    const { actor, emitted } = committing()
    actor.send({
      type: 'settlement.refused',
      error: { code: 'BAD_ANSWER', message: 'misfit' },
    })
    expect(emitted).toStrictEqual([
      { type: 'receipt', clientId: 'alice', reason: 'bad-response', message: 'misfit' },
    ])
  })

  it('a BAD_ANSWER for another reason than the responder is a misfit, not a refusal of who gave it', () => {
    const { actor, emitted } = committing()
    const error = { code: 'BAD_ANSWER' as const, message: 'm', details: { reason: 'other' } }
    actor.send({ type: 'settlement.refused', error })
    expect(emitted).toStrictEqual([
      {
        type: 'receipt',
        clientId: 'alice',
        reason: 'bad-response',
        message: 'm',
        details: { reason: 'other' },
      },
    ])
    expect(actor.getSnapshot().output).toStrictEqual({ outcome: 'aborted' })
  })

  it('only a BAD_ANSWER refuses the responder: another code with a responder’s reason waits for the ending', () => {
    const { actor, emitted } = committing()
    actor.send({
      type: 'settlement.refused',
      error: { code: 'ASK_ABORTED', message: 'm', details: { reason: 'forbidden' } },
    })
    expect(emitted).toEqual([])
    expect(actor.getSnapshot().value).toBe('committing')
  })

  it.each(['forbidden', 'already-voted'])(
    'a BAD_ANSWER for the responder (%s) tells its client so, and the ask waits to be presented again',
    (reason) => {
      const { actor, emitted } = committing()
      actor.send({
        type: 'settlement.refused',
        error: { code: 'BAD_ANSWER', message: 'm', details: { reason } },
      })
      expect(emitted).toStrictEqual([{ type: 'receipt', clientId: 'alice', reason }])
      expect(actor.getSnapshot().value).toBe('awaitingPresentation')
    },
  )
})

/** A relayed ask whose client `alice` approved: her vote was counted, and the ask waits to be shown again. */
function awaitingPresentation() {
  const run = committing()
  run.actor.send({ type: 'settlement.counted', approvals: { required: 3, given: [] } })
  expect(run.actor.getSnapshot().value).toBe('awaitingPresentation')
  run.emitted.length = 0
  return run
}

describe('relayAskMachine: between two presentations (DESIGN §12)', () => {
  it('holds answers and cancels, and tells the edge’s refusals at once', () => {
    const { actor, emitted } = awaitingPresentation()
    actor.send(respond('bob', answer))
    actor.send(respond('mallory', forbidden))
    actor.send(respond('alice', { kind: 'already-voted' }))
    actor.send(respond('carol', invalid))
    expect(emitted).toEqual([
      { type: 'receipt', clientId: 'mallory', reason: 'forbidden' },
      { type: 'receipt', clientId: 'alice', reason: 'already-voted' },
      { type: 'receipt', clientId: 'carol', reason: 'bad-response', message: invalid.message },
    ])
    expect(actor.getSnapshot().context.held).toEqual([{ clientId: 'bob', response: answer }])
  })

  it('presented again, hands the ask each held response in turn, oldest first', () => {
    const { actor, emitted } = committing()
    actor.send(respond('bob', answer))
    actor.send(respond('carol', cancel))
    actor.send({ type: 'settlement.counted', approvals: { required: 3, given: [] } })
    actor.send(respond('dave', answer))
    emitted.length = 0
    actor.send({ type: 'ask.presented' })
    expect(emitted).toEqual([{ type: 'provider.settled', response: answer }])
    expect(actor.getSnapshot().value).toBe('committing')
    expect(actor.getSnapshot().context).toMatchObject({
      responder: 'bob',
      responded: 'answer',
      held: [
        { clientId: 'carol', response: cancel },
        { clientId: 'dave', response: answer },
      ],
    })
    actor.send({ type: 'settlement.counted', approvals: { required: 3, given: [] } })
    emitted.length = 0
    actor.send({ type: 'ask.presented' })
    expect(emitted).toEqual([{ type: 'provider.settled', response: cancel }])
    emitted.length = 0
    actor.send({ type: 'settlement.accepted' })
    expect(emitted).toEqual([
      { type: 'receipt', clientId: 'carol' },
      { type: 'receipt', clientId: 'dave', reason: 'not-pending' },
    ])
    expect(actor.getSnapshot().output).toEqual({ outcome: 'cancelled' })
  })

  it('presented again with nothing held, waits for a response as at first', () => {
    const { actor, emitted } = awaitingPresentation()
    actor.send({ type: 'ask.presented' })
    expect(actor.getSnapshot().value).toBe('pending')
    expect(emitted).toEqual([])
  })

  it('ended while it waits: held responses are not-pending, and it resolves as it really ended', () => {
    const { actor, emitted } = awaitingPresentation()
    actor.send(respond('bob', answer))
    actor.send({
      type: 'ask.ended',
      error: settledElsewhereOutcome({ status: 'answered', answer: answer.answer }).error,
    })
    expect(emitted).toEqual([{ type: 'receipt', clientId: 'bob', reason: 'not-pending' }])
    expect(actor.getSnapshot().output).toEqual({ outcome: 'answered' })
  })

  it('handed over while it waits: ends with no outcome, held responses not-pending', () => {
    const { actor, emitted } = awaitingPresentation()
    actor.send(respond('bob', answer))
    actor.send({ type: 'ask.ended', error: handedOverOutcome().error })
    expect(emitted).toEqual([{ type: 'receipt', clientId: 'bob', reason: 'not-pending' }])
    expect(actor.getSnapshot().output).toEqual({ outcome: undefined })
  })
})
