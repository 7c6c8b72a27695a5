/**
 * Issue 21, fault 1: a provider answered another process's ask while a third
 * process held the SQLite write lock past the busy timeout. The commit failed,
 * the answer was dropped, the ask showed `waiting-for-provider` although its
 * provider was registered, it was never presented again, and the asker got
 * ASK_TIMEOUT at its deadline; the provider was never told. Now the human's
 * answer is kept and its commit retried with backoff; the provider hears the
 * verdict once there is one.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { startChild } from '../support/processes.js'
import type { Child } from '../support/processes.js'
import { describeDialects } from '../support/dialects.js'

const SEAM = fileURLToPath(new URL('../support/seam-process.ts', import.meta.url))
const BUSY_MS = 100

const event = (name: string) => (line: string) => {
  try {
    return (JSON.parse(line) as { event?: string }).event === name
  } catch {
    return false
  }
}
const read = async (child: Child, name: string) =>
  JSON.parse(await child.line(event(name))) as Record<string, unknown>

describe('regression: an answer whose commit fails is lost', () => {
  describeDialects(
    'a write lock held past the busy timeout',
    (storage) => {
      it('keeps the answer, retries its commit until the lock is gone, and only then says accepted', async () => {
        const { location } = await storage()
        const cleanups: Array<() => Promise<void>> = []
        const start = (mode: string, options: object = {}) =>
          startChild(SEAM, ['sqlite', location, mode, JSON.stringify(options)], (kill) =>
            cleanups.push(kill),
          )
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
            const { asks } = JSON.parse(await answerer.next(event('pending'))) as {
              asks: Array<{ askId: string; state: string }>
            }
            expect(asks).toEqual([expect.objectContaining({ askId, state: 'presenting' })])
          }
          expect(answerer.lines.some(event('verdict'))).toBe(false)
          expect(answerer.lines.some(event('aborted'))).toBe(false)
          expect(asker.lines.some(event('settled'))).toBe(false)

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
          expect(answerer.lines.some(event('aborted'))).toBe(false)
        } finally {
          for (const cleanup of cleanups.reverse()) await cleanup()
        }
      }, 60_000)
    },
    ['sqlite'],
  )
})
