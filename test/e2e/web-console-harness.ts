import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll } from 'vitest'
import type { QuestionnaireEvent } from '../../src/machines/questionnaire.machine.js'
import { createUserQuestions } from '../../src/protocol/index.js'
import type {
  UserQuestionError,
  UserQuestions,
  UserQuestionsOptions,
} from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import type { WebConsole } from '../../src/providers/web/index.js'
import { launchChromium, requireChromium } from '../support/chromium.js'
import type { ChromiumProfile } from '../support/chromium.js'

// scripts/console-screenshots.ts takes its launch options from here.
export { debianChromium } from '../support/chromium.js'

/** The browser of one test file, and what each of its tests opens there. */
export interface ChromiumSession {
  /** Whether chromium is installed; without it the file's tests skip, and its own hooks should too. */
  readonly installed: boolean
  /** The file's one context (one profile): pages share its routes and storage. */
  readonly context: BrowserContext
  /** A new page, closed after the test; navigated to `url` when one is given. */
  newPage(url?: string): Promise<Page>
  /** A new seam and its web console, closed after the test. */
  serve(options?: UserQuestionsOptions): Promise<{ seam: UserQuestions; web: WebConsole }>
  /** {@link ChromiumSession.serve}, with a new page open on the console. */
  open(
    options?: UserQuestionsOptions,
  ): Promise<{ seam: UserQuestions; web: WebConsole; page: Page }>
}

/**
 * Launches chromium before the file's tests and closes it after them (each
 * test is skipped without it, or fails under CI: see `requireChromium`); after
 * each test, drops the context's routes and closes the pages and consoles the
 * test opened through the session. A console or page made without it is the
 * test's own to close (or the context's, at the end of the file).
 */
export function useChromium(options: { bypassCSP?: boolean } = {}): ChromiumSession {
  const installed = requireChromium()
  let browser: ChromiumProfile | undefined
  const consoles: WebConsole[] = []
  const pages: Page[] = []

  beforeAll(async () => {
    if (installed) browser = await launchChromium(options)
  })
  afterAll(async () => {
    await browser?.close()
  })
  afterEach(async () => {
    // Routes are the shared context's: none may outlive its test.
    await browser?.context.unrouteAll()
    await Promise.all(pages.splice(0).map((page) => page.close()))
    await Promise.all(consoles.splice(0).map((web) => web.close()))
  })

  const session: ChromiumSession = {
    installed,
    get context() {
      if (browser === undefined) throw new Error('chromium is launched in beforeAll')
      return browser.context
    },
    async newPage(url) {
      const page = await session.context.newPage()
      pages.push(page)
      if (url !== undefined) await page.goto(url)
      return page
    },
    async serve(seamOptions = {}) {
      const seam = createUserQuestions(seamOptions)
      const web = await startWebConsole({ seam })
      consoles.push(web)
      return { seam, web }
    },
    async open(seamOptions = {}) {
      const { seam, web } = await session.serve(seamOptions)
      return { seam, web, page: await session.newPage(web.url) }
    },
  }
  return session
}

/** Records how a promise settled, without an unhandled rejection. */
export function settle<T>(promise: Promise<T>) {
  return promise.then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error: error as UserQuestionError }),
  )
}

/** What the console shows for the ask on screen, read from the DOM the user sees. */
export interface ConsoleScreen {
  /** `data-state` of the card: `answering`, `planReview`, or `none` (empty or sending). */
  state: string
  /** "Question i of n", as a 0-based index. */
  index: number | undefined
  /** Each question's step label state: answered, skipped, not answered. */
  steps: string[]
  /** Labels shown as chosen on the current question. */
  checked: string[]
  /** The current question's own-answer field. */
  custom: string | undefined
  /** Whether Submit can be pressed. */
  canSubmit: boolean
}

export function readScreen(page: Page): Promise<ConsoleScreen> {
  return page.evaluate(() => {
    const card = document.querySelector<HTMLElement>('.stage .card')
    const counter = card?.querySelector('.counter')?.textContent ?? ''
    const match = /Question (\d+) of/.exec(counter)
    const submit = [...(card?.querySelectorAll('button') ?? [])].find(
      (button) => button.textContent === 'Submit',
    )
    return {
      state: card?.dataset.state ?? 'none',
      index: match === null ? undefined : Number(match[1]) - 1,
      steps: [...(card?.querySelectorAll('.step') ?? [])].map(
        (step) => step.getAttribute('aria-label')?.replace(/^Question \d+: /, '') ?? '',
      ),
      checked: [...(card?.querySelectorAll('.option[aria-checked="true"]') ?? [])].map(
        (option) => option.getAttribute('aria-label') ?? '',
      ),
      custom: card?.querySelector<HTMLInputElement>('.custom-input')?.value,
      canSubmit: submit !== undefined && !submit.disabled,
    }
  })
}

/** Performs one questionnaire event the way a user would, on the card on screen. */
export async function perform(page: Page, event: QuestionnaireEvent): Promise<void> {
  const card = page.locator('.stage .card')
  const press = async (name: string | RegExp) => {
    const button = card.getByRole('button', { name, exact: typeof name === 'string' })
    // A disabled control is how the page refuses an event the flow would ignore.
    if (await button.isEnabled()) await button.click()
  }
  switch (event.type) {
    case 'option.chosen':
      await card.getByRole('radio', { name: event.label, exact: true }).click()
      return
    case 'option.toggled':
      await card.getByRole('checkbox', { name: event.label, exact: true }).click()
      return
    case 'custom.typed':
      await card.locator('.custom-input').fill(event.text)
      return
    case 'question.skipped':
      return press('Skip')
    case 'question.back':
      return press('Back')
    case 'question.next':
      if ((await card.getByRole('button', { name: 'Next', exact: true }).count()) > 0) {
        await press('Next')
      }
      return
    case 'question.selected': {
      const step = card.locator('.step').nth(event.index)
      if ((await step.count()) > 0) await step.click()
      return
    }
    case 'batch.submitted':
      return press('Submit')
    case 'batch.cancelled':
      return press(/^Dismiss/)
    case 'plan.approved':
      return press(/^Approve/)
    case 'plan.refused':
      if ((await card.locator('textarea').count()) === 0) return
      if (event.feedback !== undefined) await card.locator('textarea').fill(event.feedback)
      // The other option's own label, or "Send feedback" when the plan offers only approval.
      return press(/^(Revise|Send feedback)$/)
    case 'plan.discussed':
      return press('Discuss instead')
  }
}

/**
 * Stands in for the relay sending each ask's deadline: adds `deadline` (epoch
 * ms, from the seam's own pending list) to every `question/requested` frame
 * that reaches pages of `context` without one. Frames that already carry it
 * pass unchanged, so the same tests hold once the relay sends it itself.
 */
export async function addDeadlines(
  context: BrowserContext,
  seam: { pending(): { askId: string; deadline?: number }[] },
): Promise<void> {
  await context.routeWebSocket(/\/ws\?/, (page) => {
    const server = page.connectToServer()
    server.onMessage((message) => {
      if (typeof message !== 'string') return page.send(message)
      const frame = JSON.parse(message) as { type?: string; rpcId?: string; deadline?: number }
      if (frame.type === 'question/requested' && frame.deadline === undefined) {
        const deadline = seam.pending().find((ask) => ask.askId === frame.rpcId)?.deadline
        if (deadline !== undefined) return page.send(JSON.stringify({ ...frame, deadline }))
      }
      page.send(message)
    })
    page.onMessage((message) => server.send(message))
    // 1005 and 1006 say no code was sent: they cannot be sent on, so the other side just closes.
    const closing = (code: number | undefined, reason: string | undefined) =>
      code === undefined || code === 1005 || code === 1006 ? {} : { code, reason: reason ?? '' }
    page.onClose((code, reason) => server.close(closing(code, reason)))
    server.onClose((code, reason) => page.close(closing(code, reason)))
  })
}
