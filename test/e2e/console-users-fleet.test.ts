/**
 * DESIGN §12 with two real `askseam console --store FILE --users FILE`
 * processes on one SQLite file, each knowing its own people: each admits only
 * its own, and the approvals given through both count once each and settle
 * the ask once, with both approvers in the record.
 */
import { createHash, randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'
import { freePort, startConsole } from '../support/console-process.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const plan = [
  {
    id: 'plan',
    question: 'Ship the migration?',
    detail: '1. back up\n2. migrate',
    options: [{ label: 'Approve' }, { label: 'Revise' }],
    intent: { kind: 'plan-review' as const, approve: 'Approve' },
  },
]
const approve = { answers: [{ id: 'plan', selected: ['Approve'] }] }
const sha256 = (token: string) => createHash('sha256').update(token).digest('hex')

it('two consoles with different users files on one store: each admits its own people, votes count once each', async () => {
  const temp = tempDirectory()
  cleanups.push(() => temp.remove())
  const file = temp.file()
  const tokens = {
    ana: randomBytes(24).toString('base64url'),
    bo: randomBytes(24).toString('base64url'),
  }
  const consoles = []
  for (const id of ['ana', 'bo'] as const) {
    const users = join(dirname(file), `${id}-users.json`)
    writeFileSync(
      users,
      JSON.stringify([{ id, name: id.toUpperCase(), tokenSha256: sha256(tokens[id]) }]),
    )
    const port = await freePort()
    const { url } = await startConsole(
      ['--store', file, '--users', users, '--port', String(port)],
      (stop) => cleanups.push(stop),
    )
    consoles.push(new URL(url).origin)
  }
  const [anaConsole, boConsole] = consoles as [string, string]
  const answer = (origin: string, token: string, askId: string) =>
    fetch(`${origin}/api/asks/${askId}/answer`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(approve),
    })

  const store = createSqliteStore({ path: file })
  const seam = createUserQuestions({ store, waitForProviderMs: 30_000 })
  cleanups.push(async () => {
    await seam.close()
    await store.close()
  })
  const asked = seam.ask({ questions: plan, approvals: 2, key: 'two-consoles', timeoutMs: 60_000 })
  // Each console shows the ask once its store has it.
  let askId: string | undefined
  while (askId === undefined) {
    const listed = await fetch(`${boConsole}/api/asks`, {
      headers: { Authorization: `Bearer ${tokens.bo}` },
    })
    const body = (await listed.json()) as { asks?: Array<{ rpcId: string }> }
    askId = body.asks?.[0]?.rpcId
    if (askId === undefined) await new Promise((resolve) => setTimeout(resolve, 50))
  }

  // Neither console knows the other's person.
  expect((await answer(boConsole, tokens.ana, askId)).status).toBe(401)
  expect((await answer(anaConsole, tokens.bo, askId)).status).toBe(401)

  const first = await answer(anaConsole, tokens.ana, askId)
  expect(first.status).toBe(200)
  expect(await first.json()).toMatchObject({ accepted: true, counted: { required: 2 } })
  // Ana again, through her console: counted once.
  expect((await answer(anaConsole, tokens.ana, askId)).status).toBe(409)
  const second = await answer(boConsole, tokens.bo, askId)
  expect(second.status).toBe(200)
  await expect(asked).resolves.toEqual(approve)

  const [record] = await seam.history({ key: 'two-consoles' })
  expect(record?.outcome?.by).toEqual([
    { id: 'ana', name: 'ANA', via: 'http' },
    { id: 'bo', name: 'BO', via: 'http' },
  ])
  expect(record?.events.filter(({ type }) => type === 'vote')).toHaveLength(2)
}, 60_000)
