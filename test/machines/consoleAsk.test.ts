import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import { consoleAskMachine } from '../../src/machines/index.js'
import type { ConsoleAskEvent, ConsoleAskVerdict } from '../../src/machines/index.js'

/** An ask's machine with what it asked the page to do, in order. */
function start(...events: ConsoleAskEvent[]) {
  const actor = createActor(consoleAskMachine)
  const emitted: string[] = []
  actor.on('answer.send', ({ frame }) => emitted.push(`send ${frame}`))
  actor.on('questions.restart', () => emitted.push('restart'))
  actor.start()
  for (const event of events) actor.send(event)
  return { actor, emitted }
}

const answered = { type: 'answered', frame: 'F', sent: 'answered' } as const
const offered = { type: 'offered', counted: false } as const
const receipt = (verdict: ConsoleAskVerdict) => ({ type: 'receipt', verdict }) as const
const where = (actor: ReturnType<typeof start>['actor']) => {
  const snapshot = actor.getSnapshot()
  return { value: snapshot.value, listed: snapshot.hasTag('listed'), output: snapshot.output }
}

describe('consoleAskMachine', () => {
  it('is listed and answering from the first offer, and sends the answer once the user finished', () => {
    const { actor, emitted } = start()
    expect(where(actor)).toEqual({ value: { shown: 'answering' }, listed: true, output: undefined })
    actor.send(answered)
    expect(where(actor)).toMatchObject({ value: { shown: 'sent' }, listed: true })
    expect(actor.getSnapshot().context.sent).toEqual({ frame: 'F', kind: 'answered' })
    expect(emitted).toEqual(['send F'])
  })

  it('sends an unconfirmed answer again each time the host offers the ask anew', () => {
    const { actor, emitted } = start(answered, offered, offered)
    expect(emitted).toEqual(['send F', 'send F', 'send F'])
    expect(where(actor).value).toEqual({ shown: 'sent' })
  })

  it('sends nothing when the host offers an ask the user is still answering', () => {
    const { actor, emitted } = start(offered, { type: 'offered', counted: true })
    expect(emitted).toEqual([])
    expect(where(actor).value).toEqual({ shown: 'answering' })
  })

  it.each([
    ['accepted', 'accepted', { left: 'accepted', sent: 'discuss' }],
    ['counted', 'counted', { left: 'counted', sent: 'discuss' }],
    ['not-pending', 'notPending', { left: 'not-pending', sent: 'discuss' }],
  ] as const)('leaves on a %s receipt for the answer it sent', (verdict, state, output) => {
    const { actor } = start({ type: 'answered', frame: 'F', sent: 'discuss' }, receipt(verdict))
    expect(where(actor)).toEqual({ value: state, listed: false, output })
  })

  it('starts the questions over when the host refuses the answer, and stays listed', () => {
    const { actor, emitted } = start(answered, receipt('refused'))
    expect(where(actor)).toMatchObject({ value: { shown: 'answering' }, listed: true })
    expect(actor.getSnapshot().context.sent).toBeUndefined()
    expect(emitted).toEqual(['send F', 'restart'])
    // What was refused is not sent again when the host offers the ask anew.
    actor.send(offered)
    expect(emitted).toEqual(['send F', 'restart'])
  })

  it('starts the questions over when the host offers the ask again with this page’s approval counted', () => {
    const { actor, emitted } = start(answered, { type: 'offered', counted: true })
    expect(where(actor)).toMatchObject({ value: { shown: 'answering' }, listed: true })
    expect(emitted).toEqual(['send F', 'restart'])
  })

  it('stays while answering again when the receipt of a counted approval comes late', () => {
    const { actor, emitted } = start(
      answered,
      { type: 'offered', counted: true },
      receipt('counted'),
    )
    expect(where(actor)).toMatchObject({ value: { shown: 'answering' }, listed: true })
    expect(emitted).toEqual(['send F', 'restart'])
  })

  it('leaves as resolved when the host ends the ask before the user answered', () => {
    const { actor } = start({ type: 'resolved' })
    expect(where(actor)).toEqual({ value: 'resolved', listed: false, output: { left: 'resolved' } })
  })

  it('leaves the list but waits for its receipt when the host resolves the ask its answer went to', () => {
    const { actor } = start(answered, { type: 'resolved' })
    expect(where(actor)).toMatchObject({ value: 'awaitingReceipt', listed: false })
    // The ask ended: another offer cannot bring it back.
    actor.send(offered)
    expect(where(actor).value).toBe('awaitingReceipt')
    actor.send(receipt('accepted'))
    expect(where(actor).output).toEqual({ left: 'accepted', sent: 'answered' })
  })

  it.each([
    ['accepted', { left: 'accepted', sent: 'answered' }],
    ['counted', { left: 'counted', sent: 'answered' }],
    ['not-pending', { left: 'not-pending', sent: 'answered' }],
    ['refused', { left: 'refused', sent: 'answered' }],
  ] as const)('after it was resolved, a %s receipt ends it', (verdict, output) => {
    const { actor, emitted } = start(answered, { type: 'resolved' }, receipt(verdict))
    expect(where(actor).output).toEqual(output)
    // A refused answer to an ask that ended is not started over: nothing is left to answer.
    expect(emitted).toEqual(['send F'])
  })

  it('is carried aside when not offered again after a reconnect, and comes back where it was', () => {
    const answering = start({ type: 'unoffered' })
    expect(where(answering.actor)).toMatchObject({ value: 'carried', listed: false })
    answering.actor.send(offered)
    expect(where(answering.actor)).toMatchObject({ value: { shown: 'answering' }, listed: true })

    const sent = start(answered, { type: 'unoffered' })
    expect(where(sent.actor).value).toBe('carried')
    sent.actor.send(offered)
    expect(where(sent.actor).value).toEqual({ shown: 'sent' })
    expect(sent.emitted).toEqual(['send F', 'send F'])
  })

  it('comes back answering again when the host offers a carried ask with this page’s approval counted', () => {
    const { actor, emitted } = start(
      answered,
      { type: 'unoffered' },
      { type: 'offered', counted: true },
    )
    expect(where(actor).value).toEqual({ shown: 'answering' })
    expect(actor.getSnapshot().context.sent).toBeUndefined()
    expect(emitted).toEqual(['send F', 'restart'])
    // Counted on an ask the user had not answered: nothing to start over.
    const fresh = start({ type: 'unoffered' }, { type: 'offered', counted: true })
    expect(where(fresh.actor).value).toEqual({ shown: 'answering' })
    expect(fresh.emitted).toEqual([])
  })

  it('keeps a carried ask aside through a refusal, its questions started over, and ignores a resolve', () => {
    const { actor, emitted } = start(answered, { type: 'unoffered' }, receipt('refused'))
    expect(where(actor).value).toBe('carried')
    expect(emitted).toEqual(['send F', 'restart'])
    actor.send({ type: 'resolved' })
    expect(where(actor).value).toBe('carried')
    actor.send(offered)
    expect(where(actor).value).toEqual({ shown: 'answering' })
  })

  it.each([
    ['answering', [], { left: 'console-ended' }],
    ['sent', [answered], { left: 'console-ended', sent: 'answered' }],
    ['carried', [answered, { type: 'unoffered' }], { left: 'console-ended', sent: 'answered' }],
    [
      'awaiting its receipt',
      [answered, { type: 'resolved' }],
      { left: 'console-ended', sent: 'answered' },
    ],
  ] as const)(
    'leaves when the console ends while %s, saying whether an answer went unconfirmed',
    (_, events, output) => {
      const { actor } = start(...(events as readonly ConsoleAskEvent[]))
      actor.send({ type: 'console.ended' })
      expect(where(actor)).toEqual({ value: 'consoleEnded', listed: false, output })
    },
  )

  it('has plain JSON context, so it persists', () => {
    const { actor } = start(answered)
    const persisted = actor.getPersistedSnapshot()
    expect(JSON.parse(JSON.stringify(persisted))).toEqual(persisted)
  })
})
