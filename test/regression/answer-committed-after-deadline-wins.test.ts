/**
 * Issue 21, fault 2: an ask with a 3 s deadline; every process killed; 6 s
 * later a seam whose provider answers at once starts first. The overdue ask
 * was presented and its answer committed after the deadline, so the row held
 * the answer, not ASK_TIMEOUT. Now an overdue ask is never presented, and the
 * store's conditional write checks the deadline (the store contract checks
 * the write itself on every store).
 */
import { describe, expect, it } from 'vitest'
import { isEvent, read, seamProcesses } from '../support/seam-processes.js'
import { describeDialects } from '../support/dialects.js'

describe('regression: an answer committed after the deadline wins', () => {
  describeDialects(
    'every process killed, a provider that answers at once started late',
    (storage) => {
      it('ends the overdue ask ASK_TIMEOUT with its deadline, and never presents it', async () => {
        const { dialect, location, open } = await storage()
        const { start, stopAll } = seamProcesses(dialect, location)
        try {
          const asker = start('ask', { key: 'late', timeoutMs: 1_500 })
          const { askId, deadline } = (await read(asker, 'asked')) as {
            askId: string
            deadline: number
          }
          await asker.kill()
          while (Date.now() <= deadline) await new Promise((resolve) => setTimeout(resolve, 50))

          const answerer = start('answer', { label: 'SQLite' })
          await read(answerer, 'ready')
          const store = open()
          let record = await store.get(askId)
          while (record?.state !== 'settled') {
            await new Promise((resolve) => setTimeout(resolve, 20))
            record = await store.get(askId)
          }
          expect(record.outcome).toEqual({
            status: 'rejected',
            error: {
              code: 'ASK_TIMEOUT',
              message: 'nobody answered before the deadline',
              details: { deadline, startedAt: expect.any(Number) },
            },
          })
          expect(answerer.lines.filter(isEvent('presented'))).toEqual([])
        } finally {
          await stopAll()
        }
      }, 60_000)
    },
  )
})
