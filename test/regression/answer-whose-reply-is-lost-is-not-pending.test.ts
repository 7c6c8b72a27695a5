/**
 * An answer whose commit reached the store but whose reply was lost (the
 * connection dropped after the commit) was told it had lost: the retry found
 * the ask settled with that very answer, the provider's signal aborted with
 * `settled-elsewhere`, and a console client that answered over HTTP got 409
 * `not-pending` while the asker got its answer. Now a presentation whose
 * write failed recognises its own answer in what the store holds, and the
 * client hears 200 `accepted`; on real SQLite and Postgres stores, answered
 * from a console on another seam than the one that asks.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import type { WebConsole } from '../../src/providers/web/index.js'
import { describeDialects } from '../support/dialects.js'
import { holdingStore } from '../support/holding-store.js'
import { canonicalAnswer, questions, validAnswer } from '../providers/web/relay-harness.js'
import { openSocket } from '../providers/web/ws-client.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describeDialects('regression: an answer whose commit reply is lost', (storage) => {
  it('is accepted over HTTP, its tab told resolved, and the record holds one settlement', async () => {
    const { open } = await storage()
    const asker = createUserQuestions({ store: open() })
    const holding = holdingStore(open())
    const consoleSeam = createUserQuestions({ store: holding.store })
    const web: WebConsole = await startWebConsole({ seam: consoleSeam })
    cleanups.push(
      () => asker.close(),
      () => consoleSeam.close(),
      () => web.close(),
    )

    const asked = asker.ask({ key: 'lost-reply', questions, timeoutMs: 60_000 })
    const tab = await openSocket(web.wsUrl)
    cleanups.push(() => tab.close())
    const { rpcId } = await tab.next('question/requested')
    const origin = new URL(web.url).origin
    const reply = fetch(`${origin}/api/asks/${String(rpcId)}/answer`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${web.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(validAnswer),
    })
    await vi.waitFor(() => expect(holding.held.map((write) => write.kind)).toEqual(['settle']))
    const write = holding.held.shift()!
    // Every later write goes through: the retry of this one finds it committed.
    await holding.release()
    await write.lose(new Error('Connection terminated unexpectedly'))

    const response = await reply
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 200,
      body: { accepted: true },
    })
    await expect(asked).resolves.toEqual(canonicalAnswer)
    await tab.next('question/resolved', (frame) => frame.outcome === 'answered')
    const [history] = await asker.history({ key: 'lost-reply' })
    expect(history?.outcome).toMatchObject({ status: 'answered', answer: canonicalAnswer })
    expect(history?.events.filter((event) => event.type === 'settled')).toHaveLength(1)
  }, 30_000)
})
