/**
 * A plan needs two approvals. While Ana's approval was being committed (a
 * store lock of 200 ms sufficed), Bo's approval got `receipt { accepted:
 * false, reason: 'not-pending' }` (over HTTP `409 not-pending`): his vote
 * was not counted although the ask was still pending. With two consoles on
 * one store, after a stale-count approval was refused `already-voted`, the
 * relay held no entry during the seam's pause, and Bo's approval got
 * `not-pending` too. Now the relay's ask holds another person's response
 * while one is committed or the ask waits to be shown again, and hands it to
 * the ask once it is presented again: `not-pending` only once the ask has
 * ended (DESIGN §7, §12).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { createRelay, startWebConsole } from '../../src/providers/web/index.js'
import type { RelayClient, WebConsole } from '../../src/providers/web/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { holdingStore } from '../support/holding-store.js'
import { openSocket } from '../providers/web/ws-client.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'
import { approval as approve, consoleUsers, planToApprove as plan } from '../support/plan-review.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const tokens = { ana: 'ana-token-0123456789', bo: 'bo-token-0123456789' }
const users = consoleUsers(tokens)
type Person = keyof typeof tokens

const approval = (rpcId: string) => ({
  type: 'question/respond',
  rpcId,
  result: { ok: true, value: approve },
})

/** A SQLite file for this test. */
function sqliteFile(): string {
  const temp = tempDirectory()
  cleanups.push(() => temp.remove())
  return temp.file()
}

/** A console on a seam of its own over `store`. */
async function consoleOn(store: AskStore) {
  const seam = createUserQuestions({ store })
  cleanups.push(() => store.close())
  cleanups.push(() => seam.close())
  const web = await startWebConsole({ seam, users })
  cleanups.push(() => web.close())
  return { seam, web }
}

async function tab(web: WebConsole, as: Person) {
  const socket = await openSocket(`${web.wsUrl}?token=${tokens[as]}`)
  cleanups.push(() => socket.close())
  return socket
}

describe('regression: an approval while another commits is not-pending', () => {
  it('an approval from a tab while another person’s is committed is counted, and settles the ask', async () => {
    // Votes and settlements wait for the test: Ana's approval stays in flight to the store.
    const holding = holdingStore(createSqliteStore({ path: sqliteFile() }))
    const { seam, web } = await consoleOn(holding.store)
    const [ana, bo] = [await tab(web, 'ana'), await tab(web, 'bo')]
    const asked = seam.ask({ questions: plan, key: 'tab', approvals: 2 })
    asked.catch(() => undefined) // Awaited below; a failed test must not leave it unhandled.
    const { rpcId } = await ana.next('question/requested')
    await bo.next('question/requested')
    ana.send(approval(rpcId))
    await vi.waitFor(() => expect(holding.held.map((write) => write.kind)).toEqual(['vote']))
    bo.send(approval(rpcId))
    // A connection's frames are read in order: once this one is answered, Bo's approval was read.
    bo.send('not json')
    await bo.next('error')
    await holding.release()

    expect(await ana.next('receipt')).toMatchObject({ accepted: true, counted: { given: ['ana'] } })
    expect(await bo.next('receipt')).toEqual({ type: 'receipt', rpcId, accepted: true })
    expect(await asked).toEqual(approve)
    const [record] = await seam.history({ key: 'tab' })
    expect(record?.outcome?.by.map(({ id }) => id)).toEqual(['ana', 'bo'])
  })

  it('an approval over HTTP while another person’s is committed is counted: 200, not 409', async () => {
    const holding = holdingStore(createSqliteStore({ path: sqliteFile() }))
    const seam = createUserQuestions({ store: holding.store })
    cleanups.push(() => holding.store.close())
    cleanups.push(() => seam.close())
    // The relay the console's HTTP API answers through, told who each request is.
    const relay = createRelay<RelayClient & { id: string }>(seam, {
      responderOf: ({ id }) => ({ id, via: 'http' }),
    })
    cleanups.push(() => relay.dispose())
    const asked = seam.ask({ questions: plan, key: 'http', approvals: 2 })
    asked.catch(() => undefined) // Awaited below; a failed test must not leave it unhandled.
    await vi.waitFor(() => expect(relay.pending()).toHaveLength(1))
    const rpcId = relay.pending()[0]!.rpcId
    const respond = (id: Person) =>
      relay.respond({ id, send() {}, close() {} }, rpcId, { ok: true, value: approve })
    const ana = respond('ana')
    await vi.waitFor(() => expect(holding.held.map((write) => write.kind)).toEqual(['vote']))
    const bo = respond('bo')
    await holding.release()

    expect(await ana).toEqual({ accepted: true, counted: { required: 2, given: ['ana'] } })
    expect(await bo).toEqual({ accepted: true })
    expect(await asked).toEqual(approve)
    const [record] = await seam.history({ key: 'http' })
    expect(record?.outcome?.by.map(({ id, via }) => `${id}/${via}`)).toEqual([
      'ana/http',
      'bo/http',
    ])
  })

  it('an approval during the pause after a stale-count refusal on another console is counted', async () => {
    const path = sqliteFile()
    const [one, two] = [
      await consoleOn(createSqliteStore({ path })),
      await consoleOn(createSqliteStore({ path })),
    ]
    const asker = createUserQuestions({ store: createSqliteStore({ path }) })
    cleanups.push(() => asker.close())
    const anaOnOne = await tab(one.web, 'ana')
    const [anaOnTwo, boOnTwo] = [await tab(two.web, 'ana'), await tab(two.web, 'bo')]
    const asked = asker.ask({ questions: plan, key: 'paused', approvals: 2 })
    asked.catch(() => undefined) // Awaited below; a failed test must not leave it unhandled.
    const { rpcId } = await anaOnOne.next('question/requested')
    await anaOnTwo.next('question/requested')
    await boOnTwo.next('question/requested')
    anaOnOne.send(approval(rpcId))
    expect(await anaOnOne.next('receipt')).toMatchObject({ counted: { given: ['ana'] } })

    // Console 2 still shows no approval: the store refuses Ana's second one, and its seam pauses.
    anaOnTwo.send(approval(rpcId))
    expect(await anaOnTwo.next('receipt')).toMatchObject({ reason: 'already-voted' })
    boOnTwo.send(approval(rpcId))

    expect(await boOnTwo.next('receipt')).toEqual({ type: 'receipt', rpcId, accepted: true })
    expect(await asked).toEqual(approve)
    expect(await boOnTwo.next('question/resolved')).toMatchObject({ outcome: 'answered' })
  })
})
