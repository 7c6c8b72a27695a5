import { describe, expect, it } from 'vitest'
import type { InspectionEvent } from 'xstate'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import { settle } from '../support/settle.js'

describe('inspect', () => {
  it('reaches the seam and every ask: actor, event and snapshot records', async () => {
    const records: InspectionEvent[] = []
    const seam = createUserQuestions({ inspect: (event) => records.push(event) })
    seam.registerProvider({
      ask: async ({ questions }) => ({
        answers: questions.map(({ id }) => ({ id, selected: [] })),
      }),
    })
    await seam.ask({ questions: [{ id: 'a', question: 'First?' }] })
    await seam.ask({ questions: [{ id: 'b', question: 'Second?' }] })

    const machineIds = (type: InspectionEvent['type']) =>
      new Set(
        records
          .filter((record) => record.type === type)
          .map((record) => (record.actorRef as { logic?: { id?: string } }).logic?.id)
          .filter((id) => id !== undefined),
      )
    expect(machineIds('@xstate.actor')).toEqual(new Set(['seam', 'fleet', 'ask', 'presentation']))
    expect(machineIds('@xstate.event')).toEqual(new Set(['seam', 'fleet', 'ask', 'presentation']))
    expect(machineIds('@xstate.snapshot')).toEqual(
      new Set(['seam', 'fleet', 'ask', 'presentation']),
    )
    const askActors = new Set(
      records
        .filter((record) => record.type === '@xstate.actor')
        .filter((record) => (record.actorRef as { logic?: { id?: string } }).logic?.id === 'ask')
        .map((record) => record.actorRef.sessionId),
    )
    expect(askActors.size).toBe(2)
    const registered = records.find(
      (record) => record.type === '@xstate.event' && record.event.type === 'provider.registered',
    )
    expect(registered).toBeDefined()
    const answered = records.filter(
      (record) =>
        record.type === '@xstate.snapshot' &&
        (record.snapshot as { status?: string; value?: unknown }).status === 'done' &&
        (record.snapshot as { value?: unknown }).value === 'answered',
    )
    expect(answered).toHaveLength(2)
  })
})

describe('inspect on a seam presenting another seam’s ask', () => {
  it('reaches the presentation of that ask too', async () => {
    const store = createMemoryStore()
    const records: InspectionEvent[] = []
    const worker = createUserQuestions({ store })
    const console_ = createUserQuestions({ store, inspect: (event) => records.push(event) })
    console_.registerProvider({
      ask: async ({ questions }) => ({
        answers: questions.map(({ id }) => ({ id, selected: [] })),
      }),
    })
    await settle() // the worker hears of the console's provider
    await worker.ask({ questions: [{ id: 'a', question: 'First?' }] })
    const presentations = records.filter(
      (record) =>
        record.type === '@xstate.actor' &&
        (record.actorRef as { logic?: { id?: string } }).logic?.id === 'presentation',
    )
    expect(presentations).toHaveLength(1)
    await Promise.all([worker.close(), console_.close()])
  })
})
