/**
 * DESIGN §12 across real processes on one store: approvals given in the same
 * instant by two consoles in two processes count once each and settle the
 * ask once; the last approval arriving as the deadline passes never wins
 * after it; a voter's process killed once its vote is counted loses nothing.
 */
import { expect, it } from 'vitest'
import { describeDialects } from '../support/dialects.js'
import { read, seamProcesses } from '../support/seam-processes.js'
import type { Child } from '../support/processes.js'

const approve = { answers: [{ id: 'plan', selected: ['Approve'] }] }

describeDialects('approvals across processes', (storage) => {
  /** Consoles in processes of their own, each answering as one person when told. */
  async function consoles(start: (mode: string, options?: object) => Child, people: string[]) {
    const started = people.map((as) => start('answer', { plan: true, hold: true, as }))
    await Promise.all(started.map((child) => read(child, 'ready')))
    return started
  }

  it('two approvals in the same instant from two processes settle the ask once, by both', async () => {
    const { dialect, location, open } = await storage()
    const { start, stopAll } = seamProcesses(dialect, location)
    try {
      const [alice, bob] = await consoles(start, ['alice', 'bob'])
      const asker = start('ask', {
        plan: true,
        approvals: 2,
        key: 'both-at-once',
        timeoutMs: 120_000,
      })
      const { askId } = await read(asker, 'asked')
      for (const child of [alice!, bob!]) await read(child, 'presented')
      for (const child of [alice!, bob!]) child.send(`answer ${String(askId)}`)
      const verdicts = await Promise.all([alice!, bob!].map((child) => read(child, 'verdict')))
      // One of them completed the count; the other was counted first.
      expect(verdicts.map(({ status }) => status).sort()).toEqual(['accepted', 'counted'])
      expect(await read(asker, 'settled')).toEqual({ event: 'settled', answer: approve })
      const [record] = await open().history({ askId: String(askId) })
      const counted = verdicts.find(({ status }) => status === 'counted')!
      const first = counted === verdicts[0] ? 'alice' : 'bob'
      const second = first === 'alice' ? 'bob' : 'alice'
      expect(record?.outcome?.by.map(({ id }) => id)).toEqual([first, second])
      // Each vote once; the record orders events by each writer's clock, the outcome by the count.
      const votes = record?.events.filter(({ type }) => type === 'vote').map(({ by }) => by?.id)
      expect(votes?.sort()).toEqual(['alice', 'bob'])
      expect(record?.events.filter(({ type }) => type === 'settled')).toHaveLength(1)
    } finally {
      await stopAll()
    }
  }, 60_000)

  it('the last approval arriving as the deadline passes is never committed after it', async () => {
    const { dialect, location, open } = await storage()
    const { start, stopAll } = seamProcesses(dialect, location)
    try {
      const [alice, bob] = await consoles(start, ['alice', 'bob'])
      const asker = start('ask', { plan: true, approvals: 2, timeoutMs: 2_000 })
      const { askId, deadline } = await read(asker, 'asked')
      await read(alice!, 'presented')
      alice!.send(`answer ${String(askId)}`)
      expect((await read(alice!, 'verdict')).status).toBe('counted')
      await new Promise((resolve) => setTimeout(resolve, Number(deadline) - Date.now()))
      bob!.send(`answer ${String(askId)}`)
      const settled = await read(asker, 'settled')
      const record = await open().get(String(askId))
      if (record?.outcome?.status === 'answered') {
        expect(record.settledAt).toBeLessThan(Number(deadline))
        expect(settled.answer).toEqual(approve)
      } else {
        expect(settled.code).toBe('ASK_TIMEOUT')
        expect(record?.outcome).toMatchObject({
          status: 'rejected',
          error: { code: 'ASK_TIMEOUT' },
        })
      }
    } finally {
      await stopAll()
    }
  }, 60_000)

  it('a voter killed after its vote is counted loses nothing: the next approval settles the ask', async () => {
    const { dialect, location, open } = await storage()
    const { start, stopAll } = seamProcesses(dialect, location)
    try {
      const [alice, bob] = await consoles(start, ['alice', 'bob'])
      const asker = start('ask', {
        plan: true,
        approvals: 2,
        key: 'killed-voter',
        timeoutMs: 120_000,
      })
      const { askId } = await read(asker, 'asked')
      await read(alice!, 'presented')
      alice!.send(`answer ${String(askId)}`)
      expect(await read(alice!, 'verdict')).toMatchObject({ status: 'counted', given: ['alice'] })
      await alice!.kill()
      await read(bob!, 'presented')
      bob!.send(`answer ${String(askId)}`)
      expect((await read(bob!, 'verdict')).status).toBe('accepted')
      expect(await read(asker, 'settled')).toEqual({ event: 'settled', answer: approve })
      const [record] = await open().history({ key: 'killed-voter' })
      expect(record?.outcome?.by.map(({ id }) => id)).toEqual(['alice', 'bob'])
    } finally {
      await stopAll()
    }
  }, 60_000)
})
