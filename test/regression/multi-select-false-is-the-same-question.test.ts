/**
 * Issue 21, fault 5: under one key, the same question with `multiSelect:
 * false` written out was INVALID_REQUEST (`field: 'key'`), while an undefined
 * `description` passed. A field written out at its default is the same
 * question (DESIGN §10): the second caller joins the first caller's ask, on
 * the memory store and on a durable one that kept the first ask's row.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionItem, UserQuestions } from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'

const bare: AskUserQuestionItem = {
  id: 'region',
  question: 'Which region?',
  header: 'Region',
  options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
}
// As JavaScript callers and models write it: the defaults spelled out.
const writtenOut = {
  ...bare,
  multiSelect: false,
  options: [
    { label: 'eu-west-1', description: undefined },
    { label: 'us-east-1', description: undefined },
  ],
} as unknown as AskUserQuestionItem

const seams: UserQuestions[] = []
const removals: Array<() => void> = []
afterEach(async () => {
  await Promise.all(seams.splice(0).map((seam) => seam.close()))
  for (const remove of removals.splice(0)) remove()
})
const sqliteFile = () => {
  const temp = tempDirectory()
  removals.push(temp.remove)
  return createSqliteStore({ path: temp.file() })
}

describe('regression: multiSelect: false is the question without it', () => {
  it.each([
    ['the memory store', () => createMemoryStore()],
    ['a SQLite file', sqliteFile],
  ])(
    'on %s, a second caller writing the defaults out joins the first caller’s ask',
    async (_, store) => {
      const seam = createUserQuestions({ store: store() })
      seams.push(seam)
      const provider = createControllableProvider()
      seam.registerProvider(provider)
      const first = seam.ask({ key: 'region', questions: [bare] })
      const second = seam.ask({ key: 'region', questions: [writtenOut] })
      const call = await provider.call(0)
      const answer = { answers: [{ id: 'region', selected: ['eu-west-1'] }] }
      call.resolve(answer)
      const [a, b] = await Promise.all([first, second])
      expect(a).toEqual(b)
      expect(provider.calls).toHaveLength(1)
    },
  )

  it('a real difference under the same key is still INVALID_REQUEST naming the key', async () => {
    const seam = createUserQuestions({ store: createMemoryStore() })
    seams.push(seam)
    seam.registerProvider(createControllableProvider())
    void seam.ask({ key: 'region', questions: [bare] }).catch(() => undefined)
    await expect(
      seam.ask({ key: 'region', questions: [{ ...bare, multiSelect: true }] }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'key' } })
  })
})
