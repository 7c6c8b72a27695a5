/**
 * The console in a background tab (DESIGN §13), in Chromium: the title counts
 * the waiting asks; with the `notifications` permission a browser
 * notification is raised for an ask that arrives while the tab is out of
 * sight (another tab in front), never for one already shown and never again when a reconnect
 * replays it; permission is asked for only from the header's opt-in. What
 * the page constructs is recorded by wrapping `window.Notification`.
 */
import type { Page } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import { settle, useChromium } from './web-console-harness.js'

const browser = useChromium()

afterEach(async () => {
  if (browser.installed) await browser.context.clearPermissions()
})

/** Wraps the page's `Notification`: every construction and permission request is recorded. */
const RECORD_NOTIFICATIONS = `(() => {
  const Real = window.Notification
  const record = { made: [], requests: 0 }
  const instances = []
  window.__notifications = record
  window.__notificationInstances = instances
  if (typeof Real !== 'function') return
  class Recording extends Real {
    constructor(title, options) {
      super(title, options)
      instances.push(this)
      record.made.push({ title, body: options && options.body, tag: options && options.tag })
    }
  }
  Object.defineProperty(Recording, 'permission', { get: () => Real.permission })
  Recording.requestPermission = (...args) => {
    record.requests++
    return Real.requestPermission(...args)
  }
  window.Notification = Recording
})()`

interface Recorded {
  made: { title: string; body?: string; tag?: string }[]
  requests: number
}

/**
 * Lets the page see real focus: Playwright tells every page it has focus,
 * and headless tabs are never hidden, so the tab in front is the one focused.
 */
async function realFocus(page: Page): Promise<void> {
  const session = await browser.context.newCDPSession(page)
  await session.send('Emulation.setFocusEmulationEnabled', { enabled: false })
}

const focused = (page: Page) => page.evaluate(() => document.hasFocus())

const recorded = (page: Page) =>
  page.evaluate(() => (window as unknown as { __notifications: Recorded }).__notifications)

const question = (id: string, text: string) => [{ id, question: text }]

async function answerOnPage(page: Page, text: string, answer: string): Promise<void> {
  await page.getByRole('button', { name: new RegExp(text) }).click()
  await page.getByLabel('Your answer').fill(answer)
  await page.getByLabel('Your answer').press('Enter')
}

describe('the console in a background tab', () => {
  it('counts the waiting asks in the title, and shows the plain title when none waits', async () => {
    const { seam, web } = await browser.serve()
    const page = await browser.newPage(web.url)
    await expect.poll(() => page.title()).toBe('askseam console')
    const first = seam.ask({ questions: question('name', 'Release name?') })
    await expect.poll(() => page.title()).toBe('(1) askseam console')
    const second = seam.ask({ questions: question('date', 'Release date?') })
    await expect.poll(() => page.title()).toBe('(2) askseam console')
    await answerOnPage(page, 'Release name?', 'Aurora')
    expect(await first).toEqual({ answers: [{ id: 'name', selected: [], custom: 'Aurora' }] })
    await expect.poll(() => page.title()).toBe('(1) askseam console')
    await answerOnPage(page, 'Release date?', 'Friday')
    await second
    await expect.poll(() => page.title()).toBe('askseam console')
  })

  it('notifies of an ask that arrives out of sight, once, and not again on a reconnect replay', async () => {
    // The grace keeps the asks pending while the console restarts, as a durable store does.
    const seam = createUserQuestions({ providerGraceMs: 60_000 })
    const first = await startWebConsole({ seam })
    const { origin, port } = new URL(first.url)
    await browser.context.grantPermissions(['notifications'], { origin })
    const page = await browser.context.newPage()
    const other = await browser.context.newPage()
    let second: Awaited<ReturnType<typeof startWebConsole>> | undefined
    try {
      await page.addInitScript(RECORD_NOTIFICATIONS)
      await page.goto(first.url)
      await realFocus(page)
      await realFocus(other)
      await page.bringToFront()
      await expect.poll(() => page.locator('.notify').textContent()).toBe('Notifications on')

      // Arrives while the user looks at the tab: shown, not announced.
      const seenAsk = settle(seam.ask({ questions: question('seen', 'Seen in the tab?') }))
      await page.getByRole('heading', { name: 'Seen in the tab?' }).waitFor()
      expect(await focused(page)).toBe(true)
      expect((await recorded(page)).made).toEqual([])

      await other.bringToFront()
      await expect.poll(() => focused(page)).toBe(false)
      const awayAsk = settle(seam.ask({ questions: question('away', 'Asked while away?') }))
      await expect.poll(() => page.title()).toBe('(2) askseam console')
      await expect.poll(async () => (await recorded(page)).made.length).toBe(1)
      const [notification] = (await recorded(page)).made
      expect(notification?.title).toBe('A question is waiting in askseam')
      expect(notification?.body).toBe('Asked while away?')
      // A click on the notification shows its ask (the tab showed the first one until then).
      expect(await page.locator('.stage h2.question').textContent()).toBe('Seen in the tab?')
      await page.evaluate(() =>
        (
          window as unknown as { __notificationInstances: Notification[] }
        ).__notificationInstances[0]?.dispatchEvent(new Event('click')),
      )
      await page.getByRole('heading', { name: 'Asked while away?' }).waitFor()

      // A restart replays both asks to the tab: neither is news.
      await first.close()
      await expect
        .poll(() => page.getByRole('status').first().textContent())
        .toBe('Console restarting…')
      second = await startWebConsole({ seam, port: Number(port), token: first.token })
      await expect
        .poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 })
        .toBe('Connected')
      // A third ask after the replay is news again; it also proves the replay was read first.
      const laterAsk = settle(
        seam.ask({ questions: question('later', 'Asked after the restart?') }),
      )
      await expect.poll(() => page.title()).toBe('(3) askseam console')
      await expect.poll(async () => (await recorded(page)).made.length).toBe(2)
      expect((await recorded(page)).made.map((made) => made.body)).toEqual([
        'Asked while away?',
        'Asked after the restart?',
      ])
      expect((await recorded(page)).requests).toBe(0)

      await seam.close()
      await Promise.all([seenAsk, awayAsk, laterAsk])
    } finally {
      await second?.close()
      await first.close()
      await seam.close()
      await other.close()
      await page.close()
    }
  })

  it('asks for permission only from the header opt-in, never on load', async () => {
    const { seam, web } = await browser.serve()
    const page = await browser.context.newPage()
    try {
      await page.addInitScript(RECORD_NOTIFICATIONS)
      await page.goto(web.url)
      const optIn = page.getByRole('button', { name: 'Notify me' })
      await optIn.waitFor()
      void settle(seam.ask({ questions: question('name', 'Release name?') }))
      await page.getByRole('heading', { name: 'Release name?' }).waitFor()
      expect(await recorded(page)).toEqual({ made: [], requests: 0 })
      await browser.context.grantPermissions(['notifications'], { origin: new URL(web.url).origin })
      await optIn.click()
      await expect.poll(() => page.locator('.notify').textContent()).toBe('Notifications on')
      expect((await recorded(page)).requests).toBe(1)
    } finally {
      await page.close()
    }
  })

  it('drops an ask answered over HTTP from the open tab, saying it was answered', async () => {
    const { seam, web } = await browser.serve()
    const page = await browser.newPage(web.url)
    const asked = seam.ask({ questions: question('name', 'Release name?') })
    await page.getByRole('heading', { name: 'Release name?' }).waitFor()
    const [ask] = seam.pending()
    const response = await fetch(`${new URL(web.url).origin}/api/asks/${ask?.askId}/answer`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${web.token}` },
      body: JSON.stringify({ answers: [{ id: 'name', selected: [], custom: 'From a script' }] }),
    })
    expect(response.status).toBe(200)
    expect(await asked).toEqual({
      answers: [{ id: 'name', selected: [], custom: 'From a script' }],
    })
    await expect.poll(() => page.locator('.toast').textContent()).toContain('was answered')
    await page.getByRole('heading', { name: 'Nothing to answer right now' }).waitFor()
    await expect.poll(() => page.title()).toBe('askseam console')
  })
})
