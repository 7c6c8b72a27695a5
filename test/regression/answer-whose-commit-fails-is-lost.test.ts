/**
 * Issue 21, fault 1: a provider answered another process's ask while a third
 * process held the SQLite write lock past the busy timeout. The commit failed,
 * the answer was dropped, the ask showed `waiting-for-provider` although its
 * provider was registered, it was never presented again, and the asker got
 * ASK_TIMEOUT at its deadline; the provider was never told. Now the human's
 * answer is kept and its commit retried with backoff; the provider hears the
 * verdict once there is one.
 */
import { describe, expect, it } from 'vitest'
import { isEvent, read, seamProcesses } from '../support/seam-processes.js'
import { describeDialects } from '../support/dialects.js'

const BUSY_MS = 100

describe('regression: an answer whose commit fails is lost', () => {
  describeDialects(
    'a write lock held past the busy timeout',
    (storage) => {
      it('keeps the answer, retries its commit until the lock is gone, and only then says accepted', async () => {
        const { location } = await storage()
        const { start, stopAll } = seamProcesses('sqlite', location)
        try {
          const asker = start('ask', { key: 'fault-1', timeoutMs: 120_000 })
          const { askId } = await read(asker, 'asked')
          const answerer = start('answer', { hold: true, busyTimeoutMs: BUSY_MS })
          expect((await read(answerer, 'presented')).askId).toBe(askId)
          const locker = start('lock')
          await read(locker, 'locked')
          answerer.send(`answer ${String(askId)}`)
          await read(answerer, 'answered')
          const presentedAt = Date.now()
          // The scenario: the lock outlasts the busy timeout several times over.
          while (Date.now() - presentedAt < 5 * BUSY_MS) {
            answerer.send('pending')
            const { asks } = JSON.parse(await answerer.next(isEvent('pending'))) as {
              asks: Array<{ askId: string; state: string }>
            }
            expect(asks).toEqual([expect.objectContaining({ askId, state: 'presenting' })])
          }
          expect(answerer.lines.some(isEvent('verdict'))).toBe(false)
          expect(answerer.lines.some(isEvent('aborted'))).toBe(false)
          expect(asker.lines.some(isEvent('settled'))).toBe(false)

          locker.send('release')
          await read(locker, 'released')
          expect(await read(answerer, 'verdict')).toEqual({
            event: 'verdict',
            askId,
            status: 'accepted',
          })
          expect(await read(asker, 'settled')).toEqual({
            event: 'settled',
            answer: { answers: [{ id: 'db', selected: ['SQLite'] }] },
          })
          expect(answerer.lines.some(isEvent('aborted'))).toBe(false)
        } finally {
          await stopAll()
        }
      }, 60_000)
    },
    ['sqlite'],
  )
})
