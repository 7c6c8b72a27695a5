/**
 * Issue 21, fault 4: two consoles in two processes answered one ask in the
 * same millisecond; the loser's `signal` never aborted, because its promise
 * had already resolved. DESIGN §4 and §10: a presentation whose answer lost to
 * another commit aborts with `settled-elsewhere`, and its settlement says
 * refused.
 */
import { describe, expect, it } from 'vitest'
import { isEvent, read, seamProcesses } from '../support/seam-processes.js'
import { describeDialects } from '../support/dialects.js'

describe('regression: a presentation that lost the race is never told', () => {
  describeDialects('two consoles in two processes answer one ask at once', (storage) => {
    it('aborts the loser’s signal with settled-elsewhere and refuses it; the winner is accepted', async () => {
      const { dialect, location } = await storage()
      const { start, stopAll } = seamProcesses(dialect, location)
      try {
        const consoles = [
          start('answer', { hold: true, label: 'Postgres' }),
          start('answer', { hold: true, label: 'SQLite' }),
        ]
        await Promise.all(consoles.map((child) => read(child, 'ready')))
        const asker = start('ask', { key: 'fault-4', timeoutMs: 120_000 })
        const { askId } = await read(asker, 'asked')
        for (const child of consoles) expect((await read(child, 'presented')).askId).toBe(askId)
        for (const child of consoles) child.send(`answer ${String(askId)}`)
        const verdicts = await Promise.all(consoles.map((child) => read(child, 'verdict')))
        const winner = verdicts.findIndex((verdict) => verdict.status === 'accepted')
        expect(winner).toBeGreaterThanOrEqual(0)
        const loser = consoles[1 - winner]!
        expect(verdicts[1 - winner]).toEqual({
          event: 'verdict',
          askId,
          status: 'refused',
          code: 'ASK_ABORTED',
          reason: 'settled-elsewhere',
        })
        expect(await read(loser, 'aborted')).toEqual({
          event: 'aborted',
          askId,
          code: 'ASK_ABORTED',
          reason: 'settled-elsewhere',
        })
        expect(consoles[winner]!.lines.some(isEvent('aborted'))).toBe(false)
        const settled = await read(asker, 'settled')
        expect(settled.answer).toEqual({
          answers: [{ id: 'db', selected: [winner === 0 ? 'Postgres' : 'SQLite'] }],
        })
      } finally {
        await stopAll()
      }
    }, 60_000)
  })
})
