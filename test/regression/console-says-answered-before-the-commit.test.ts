/**
 * Issue 21, fault 3: with the store locked, a client answered through the
 * console; every tab got `question/resolved` (answered) a millisecond later,
 * and five seconds on the client's receipt said `not-pending` although the
 * ask was still pending; a client that reconnected after the lock got no
 * replay; the row stayed pending and the asker waited for its deadline. Now
 * the console says "accepted" and "resolved" only after the commit, keeps
 * the ask pending (and replayed) while the commit is retried, and the asker
 * gets the answer once the lock is gone.
 */
import { describe, expect, it } from 'vitest'
import { isEvent, read, seamProcesses } from '../support/seam-processes.js'
import { createUserQuestions } from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import { openSocket } from '../providers/web/ws-client.js'
import { describeDialects } from '../support/dialects.js'

const BUSY_MS = 100

describe('regression: the web console says answered before the commit', () => {
  describeDialects(
    'a client answers while another process holds the write lock',
    (storage) => {
      it('says accepted and resolved only after the commit, and replays the ask meanwhile', async () => {
        const { location, open } = await storage()
        const { start, stopAll } = seamProcesses('sqlite', location)
        const seam = createUserQuestions({ store: open({ busyTimeoutMs: BUSY_MS }) })
        const web = await startWebConsole({ seam })
        try {
          const asker = start('ask', { key: 'fault-3', timeoutMs: 120_000 })
          const { askId } = await read(asker, 'asked')
          const tab = await openSocket(web.wsUrl)
          const requested = await tab.next('question/requested', (frame) => frame.rpcId === askId)
          const locker = start('lock')
          await read(locker, 'locked')
          tab.send({
            type: 'question/respond',
            rpcId: requested.rpcId,
            result: { ok: true, value: { answers: [{ id: 'db', selected: ['Postgres'] }] } },
          })
          const sentAt = Date.now()
          // A tab that reconnects while the commit is retried still sees the ask.
          const reconnected = await openSocket(web.wsUrl)
          await reconnected.next('question/requested', (frame) => frame.rpcId === askId)
          while (Date.now() - sentAt < 5 * BUSY_MS) await new Promise((r) => setTimeout(r, 20))
          for (const socket of [tab, reconnected]) {
            expect(socket.frames.filter((frame) => frame.type === 'question/resolved')).toEqual([])
            expect(socket.frames.filter((frame) => frame.type === 'receipt')).toEqual([])
          }
          expect(asker.lines.some(isEvent('settled'))).toBe(false)

          locker.send('release')
          expect(await tab.next('receipt')).toEqual({
            type: 'receipt',
            rpcId: askId,
            accepted: true,
          })
          expect(await tab.next('question/resolved')).toEqual({
            type: 'question/resolved',
            rpcId: askId,
            outcome: 'answered',
          })
          await reconnected.next('question/resolved', (frame) => frame.outcome === 'answered')
          expect(await read(asker, 'settled')).toEqual({
            event: 'settled',
            answer: { answers: [{ id: 'db', selected: ['Postgres'] }] },
          })
          await tab.close()
          await reconnected.close()
        } finally {
          await web.close()
          await seam.close()
          await stopAll()
        }
      }, 60_000)
    },
    ['sqlite'],
  )
})
