/**
 * Two people approve one plan in Chromium (DESIGN §12): a console with
 * users, each person on their own page with their own token. Each page says
 * who it is signed in as, shows "1 of 2 approvals" and who gave them, and
 * spends a person's Approve once they approved.
 *
 * The first test plays the seam's calls itself (provider.ask with approvals,
 * a counted verdict, provider.ask again with the new count), so it holds the
 * page and the relay to the interface alone. The second runs against the
 * real seam and its store. The third opens a console of another seam after
 * one approval was counted: its page shows that approval.
 */
import { createHash } from 'node:crypto'
import type { Page } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskUserQuestionItem,
  ProviderSettlement,
  UserQuestionProvider,
} from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import type { WebConsole } from '../../src/providers/web/index.js'
import type { ApprovalCount, Responder } from '../../src/vocabulary/index.js'
import { useChromium } from './web-console-harness.js'

const browser = useChromium()
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const sha = (token: string) => createHash('sha256').update(token).digest('hex')
const tokens = { ana: 'ana-token-5f1c2e9a7b', bo: 'bo-token-83d0a4c6e2' }
const users = [
  { id: 'ana', name: 'Ana', tokenSha256: sha(tokens.ana) },
  { id: 'bo', name: 'Bo', tokenSha256: sha(tokens.bo) },
]

const plan: AskUserQuestionItem = {
  id: 'plan',
  question: 'Ship the migration plan?',
  detail: '1. Back up the database\n2. Run the migration\n3. Deploy',
  options: [{ label: 'Approve' }, { label: 'Revise' }],
  intent: { kind: 'plan-review', approve: 'Approve' },
}

/** A page signed in as one person, on the console's plan review. */
async function signIn(web: WebConsole, person: 'ana' | 'bo'): Promise<Page> {
  const page = await browser.newPage(`${web.url}?token=${tokens[person]}`)
  const name = person === 'ana' ? 'Ana' : 'Bo'
  await page.getByText(`Signed in as ${name} (${person})`).waitFor()
  return page
}

const approvals = (page: Page) => page.locator('.stage .approvals').textContent()
const approveButton = (page: Page) =>
  page.locator('.stage .card').getByRole('button', { name: /^Approve/ })

describe.skipIf(!browser.installed)('two people approve one plan, in Chromium', () => {
  it('pages show the count and who gave it, and spend an Approve once given (seam calls played)', async () => {
    let provider: UserQuestionProvider | undefined
    const web = await startWebConsole({
      seam: {
        registerProvider(registered) {
          provider = registered
          return () => undefined
        },
      },
      users,
    })
    cleanups.push(() => web.close())
    const present = (count: ApprovalCount) => {
      let tell!: (verdict: ProviderSettlement) => void
      const settlement = new Promise<ProviderSettlement>((resolve) => (tell = resolve))
      const answered = (provider as UserQuestionProvider).ask({
        askId: 'plan-1',
        questions: [plan],
        signal: new AbortController().signal,
        settlement,
        approvals: count,
      })
      return { answered, tell }
    }
    const ana = await signIn(web, 'ana')
    const bo = await signIn(web, 'bo')
    const first = present({ required: 2, given: [] })
    await expect.poll(() => approvals(ana)).toBe('0 of 2 approvals')
    await expect.poll(() => approvals(bo)).toBe('0 of 2 approvals')

    await approveButton(ana).click()
    const anaVote = await first.answered
    expect(anaVote).toEqual({
      answers: [{ id: 'plan', selected: ['Approve'] }],
      by: { id: 'ana', name: 'Ana', via: 'web' },
    })
    const given: Responder[] = [{ id: 'ana', name: 'Ana', via: 'web' }]
    first.tell({ status: 'counted', approvals: { required: 2, given } })
    await ana.getByText('Your approval was counted: 1 of 2; waiting for 1 more.').waitFor()
    const second = present({ required: 2, given })
    for (const page of [ana, bo]) {
      await expect.poll(() => approvals(page)).toBe('1 of 2 approvals · approved by ana')
    }
    expect(await approveButton(ana).isDisabled()).toBe(true)
    expect(await approveButton(ana).textContent()).toBe('Approve ✓ (you approved)')
    expect(await approveButton(bo).isEnabled()).toBe(true)

    await approveButton(bo).click()
    expect(await second.answered).toMatchObject({ by: { id: 'bo', name: 'Bo', via: 'web' } })
    second.tell({ status: 'accepted' })
    for (const page of [ana, bo]) {
      await expect.poll(() => page.locator('.stage .card[data-state="planReview"]').count()).toBe(0)
    }
  })

  it('the real seam: two approvals answer the ask, and the record lists both approvers', async () => {
    const store = createMemoryStore()
    const seam = createUserQuestions({ store })
    const web = await startWebConsole({ seam, users })
    cleanups.push(() => seam.close())
    cleanups.push(() => web.close())
    const ana = await signIn(web, 'ana')
    const bo = await signIn(web, 'bo')
    const asked = seam.ask({ key: 'two-approvals', questions: [plan], approvals: 2 })
    // Settled for good form should the test stop early: the close rejects it.
    asked.catch(() => undefined)
    await expect.poll(() => approvals(ana)).toBe('0 of 2 approvals')

    await approveButton(ana).click()
    for (const page of [ana, bo]) {
      await expect.poll(() => approvals(page)).toBe('1 of 2 approvals · approved by ana')
    }
    expect(await approveButton(ana).isDisabled()).toBe(true)
    await approveButton(bo).click()

    expect(await asked).toEqual({ answers: [{ id: 'plan', selected: ['Approve'] }] })
    const [record] = await store.history({ key: 'two-approvals' })
    expect(record?.outcome?.by.map((responder) => responder.id)).toEqual(['ana', 'bo'])
  })

  it('a console that opens after an approval was counted elsewhere shows it', async () => {
    // Two consoles of one fleet: each its own seam on the shared store, as two processes are.
    const store = createMemoryStore()
    const worker = createUserQuestions({ store })
    const first = createUserQuestions({ store })
    const later = createUserQuestions({ store })
    const firstWeb = await startWebConsole({ seam: first, users })
    for (const seam of [worker, first, later]) cleanups.push(() => seam.close())
    cleanups.push(() => firstWeb.close())
    const ana = await signIn(firstWeb, 'ana')
    const asked = worker.ask({ questions: [plan], approvals: 2 })
    asked.catch(() => undefined)
    await expect.poll(() => approvals(ana)).toBe('0 of 2 approvals')
    await approveButton(ana).click()
    await expect.poll(() => approvals(ana)).toBe('1 of 2 approvals · approved by ana')

    const laterWeb = await startWebConsole({ seam: later, users })
    cleanups.push(() => laterWeb.close())
    const bo = await signIn(laterWeb, 'bo')
    await expect.poll(() => approvals(bo)).toBe('1 of 2 approvals · approved by ana')
    await approveButton(bo).click()
    expect(await asked).toEqual({ answers: [{ id: 'plan', selected: ['Approve'] }] })
  })
})
