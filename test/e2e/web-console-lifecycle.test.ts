import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { createUserQuestions } from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import { deploymentQuestions } from '../../src/cli/scenario.js'
import { addDeadlines, readScreen, settle, useChromium } from './web-console-harness.js'

/**
 * The page's connection and time in Chromium: Sent ✓ once the host accepts
 * an answer (shown once); a console that stops gracefully is "restarting":
 * the tab keeps what it shows, marked so, and reconnects to a console back on
 * the same port and token; a console killed and never back ends the page
 * after a bounded time, after which it opens no more sockets and logs no more
 * errors; the countdown of an ask with a deadline.
 */

const browser = useChromium()
const hosts: ChildProcess[] = []

afterEach(() => {
  for (const host of hosts.splice(0)) host.kill('SIGKILL')
})

/** Every WebSocket the page opens and every error it logs, as they happen. */
function watch(page: Page) {
  const seen = { sockets: 0, errors: [] as string[] }
  page.on('websocket', () => seen.sockets++)
  page.on('console', (message) => {
    if (message.type() === 'error') seen.errors.push(message.text())
  })
  return seen
}

const ended = (page: Page) => page.getByRole('heading', { name: 'The console did not come back' })
const status = (page: Page) => page.getByRole('status').first().textContent()

describe('console page lifecycle', () => {
  it('shows Sent ✓ once the host accepts the answer', async () => {
    const { seam, page } = await browser.open()
    const asked = seam.ask({ questions: [{ id: 'name', question: 'Release name?' }] })
    await page.getByLabel('Your answer').fill('Aurora')
    await page.getByLabel('Your answer').press('Enter')
    expect(await asked).toEqual({ answers: [{ id: 'name', selected: [], custom: 'Aurora' }] })
    const sent = page.locator('.stage .sent')
    await sent.waitFor()
    expect(await sent.textContent()).toBe('Sent ✓The agent has your answer to “Release name?”.')
    await page.getByRole('heading', { name: 'Nothing to answer right now' }).waitFor()
    // Once: the stage says it, so no toast says it again.
    expect(await page.locator('.toast').textContent()).not.toContain('Sent ✓')
    // The next question replaces the confirmation.
    void settle(seam.ask({ questions: [{ id: 'next', question: 'Anything else?' }] }))
    await page.getByRole('heading', { name: 'Anything else?' }).waitFor()
    expect(await page.locator('.stage .sent').count()).toBe(0)
  })

  it('confirms a dismissal as sent, too', async () => {
    const { seam, page } = await browser.open()
    const asked = settle(seam.ask({ questions: [{ id: 'name', question: 'Release name?' }] }))
    await page.getByRole('button', { name: 'Dismiss', exact: true }).click()
    expect((await asked).error?.code).toBe('ASK_CANCELLED')
    await expect
      .poll(() => page.locator('.stage .sent').textContent())
      .toBe('Sent ✓The agent was told you dismissed “Release name?”.')
  })

  it('resends an answer the host never confirmed, after a reconnect, once', async () => {
    const { seam, web } = await browser.serve()
    const page = await browser.newPage()
    const seen = watch(page)
    let dropped = false
    const responds: string[] = []
    // The first answer is lost with its connection (the socket drops as it is sent).
    await page.context().routeWebSocket(/\/ws\?/, (socket) => {
      const server = socket.connectToServer()
      socket.onMessage((message) => {
        if (String(message).includes('question/respond')) responds.push(String(message))
        if (!dropped && String(message).includes('question/respond')) {
          dropped = true
          socket.close({ code: 4000, reason: 'dropped' })
          server.close()
          return
        }
        server.send(message)
      })
    })
    await page.goto(web.url)
    const asked = seam.ask({ questions: [{ id: 'name', question: 'Release name?' }] })
    await page.getByLabel('Your answer').fill('Aurora')
    await page.getByLabel('Your answer').press('Enter')
    expect(await asked).toEqual({ answers: [{ id: 'name', selected: [], custom: 'Aurora' }] })
    await page.locator('.stage .sent').waitFor()
    expect(responds).toHaveLength(2)
    expect(responds[1]).toBe(responds[0])
    expect(seen.sockets).toBe(2)
  })

  it('says Sent ✓ in a toast, once, when the next question takes the stage', async () => {
    const { seam, page } = await browser.open()
    const first = seam.ask({ questions: [{ id: 'name', question: 'Release name?' }] })
    await page.getByLabel('Your answer').fill('Aurora')
    void settle(seam.ask({ questions: [{ id: 'next', question: 'Anything else?' }] }))
    await expect.poll(() => page.locator('.queue-item').count()).toBe(2)
    await page.getByLabel('Your answer').press('Enter')
    await first
    await page.getByRole('heading', { name: 'Anything else?' }).waitFor()
    await expect.poll(() => page.locator('.toast').textContent()).toContain('Sent ✓')
    expect(await page.locator('.stage .sent').count()).toBe(0)
  })

  it('a console that stops gracefully is restarting: the tab keeps its asks, marked, and picks them up where it left them when the console is back', async () => {
    // The grace keeps the ask pending while no console is registered, as a durable store does.
    const seam = createUserQuestions({ providerGraceMs: 60_000 })
    const first = await startWebConsole({ seam })
    const { port } = new URL(first.url)
    const page = await browser.newPage()
    const seen = watch(page)
    await page.goto(first.url)
    const asked = seam.ask({ questions: deploymentQuestions })
    await page.getByRole('radio', { name: 'us-east-1', exact: true }).click()
    await page.getByRole('heading', { name: deploymentQuestions[1]!.question }).waitFor()
    await first.close()

    await expect.poll(() => status(page)).toBe('Console restarting…')
    expect(await page.locator('.offline').textContent()).toContain('The console is restarting.')
    // What it had stays, where it was: no "Nothing to answer", no "session ended".
    expect(
      await page.getByRole('heading', { name: deploymentQuestions[1]!.question }).count(),
    ).toBe(1)
    expect(await page.locator('.queue-item').count()).toBe(1)
    expect(
      await page.getByRole('heading', { name: /Nothing to answer|session ended/ }).count(),
    ).toBe(0)
    await page.getByRole('checkbox', { name: 'Load test' }).click()

    const second = await startWebConsole({ seam, port: Number(port), token: first.token })
    try {
      expect(second.url).toBe(first.url)
      await expect.poll(() => status(page), { timeout: 20_000 }).toBe('Connected')
      expect(await page.locator('.offline').textContent()).toBe('')
      expect(await readScreen(page)).toMatchObject({ index: 1, checked: ['Load test'] })
      await page.getByRole('button', { name: 'Next', exact: true }).click()
      await page.getByLabel('Your answer').fill('Back again')
      await page.getByLabel('Your answer').press('Enter')
      expect(await asked).toEqual({
        answers: [
          { id: 'region', selected: ['us-east-1'] },
          { id: 'checks', selected: ['Load test'] },
          { id: 'announce', selected: [], custom: 'Back again' },
        ],
      })
      await page.locator('.stage .sent').waitFor()
      expect(seen.sockets).toBeGreaterThan(1)
    } finally {
      await second.close()
      await seam.close()
    }
  })

  it('an answer given while the console restarts goes out, once, when it is back', async () => {
    const seam = createUserQuestions({ providerGraceMs: 60_000 })
    const first = await startWebConsole({ seam })
    const { port } = new URL(first.url)
    const page = await browser.newPage(first.url)
    const responds: string[] = []
    page.on('websocket', (socket) =>
      socket.on('framesent', ({ payload }) => {
        if (String(payload).includes('question/respond')) responds.push(String(payload))
      }),
    )
    const asked = seam.ask({ questions: [{ id: 'name', question: 'Release name?' }] })
    await page.getByRole('heading', { name: 'Release name?' }).waitFor()
    await first.close()
    await expect.poll(() => status(page)).toBe('Console restarting…')
    await page.getByLabel('Your answer').fill('Aurora')
    await page.getByLabel('Your answer').press('Enter')
    await page.getByRole('heading', { name: 'Your answer is ready' }).waitFor()
    expect(responds).toEqual([])

    const second = await startWebConsole({ seam, port: Number(port), token: first.token })
    try {
      expect(await asked).toEqual({ answers: [{ id: 'name', selected: [], custom: 'Aurora' }] })
      await page.locator('.stage .sent').waitFor()
      expect(responds).toHaveLength(1)
    } finally {
      await second.close()
      await seam.close()
    }
  })

  it('after a reconnect, an ask the console does not offer again leaves the tab', async () => {
    const seam = createUserQuestions({ providerGraceMs: 60_000 })
    const first = await startWebConsole({ seam })
    const { port } = new URL(first.url)
    const page = await browser.newPage()
    await page.clock.install()
    await page.goto(first.url)
    const controller = new AbortController()
    const gone = settle(
      seam.ask({
        questions: [{ id: 'gone', question: 'Withdrawn meanwhile?' }],
        signal: controller.signal,
      }),
    )
    const kept = settle(seam.ask({ questions: [{ id: 'kept', question: 'Still waiting?' }] }))
    await expect.poll(() => page.locator('.queue-item').count()).toBe(2)
    await first.close()
    await expect.poll(() => status(page)).toBe('Console restarting…')
    // Withdrawn while no console was there to tell the tab.
    controller.abort()
    expect((await gone).error?.code).toBe('ASK_ABORTED')
    const second = await startWebConsole({ seam, port: Number(port), token: first.token })
    try {
      for (let step = 0; step < 40 && (await status(page)) !== 'Connected'; step++) {
        await page.clock.runFor(1_000)
        await page.waitForTimeout(50)
      }
      expect(await status(page)).toBe('Connected')
      // Shown until the console has had its time to offer it again.
      expect(await page.locator('.queue-item').count()).toBe(2)
      await page.clock.runFor(11_000)
      await expect
        .poll(() => page.locator('.queue-item').allTextContents())
        .toEqual([expect.stringContaining('Still waiting?')])
      expect(seam.pending()).toHaveLength(1)
      expect(await page.locator('.toast').textContent()).toBe(
        '“Withdrawn meanwhile?” is no longer waiting: it ended while the console was away.',
      )
    } finally {
      await second.close()
      await seam.close()
      await kept
    }
  })

  it('a tab of a console that stopped with nothing pending waits for it, and says so', async () => {
    const { web, page } = await browser.open()
    await expect.poll(() => status(page)).toBe('Connected')
    await web.close()
    await expect.poll(() => status(page)).toBe('Console restarting…')
    await page.getByRole('heading', { name: 'Waiting for the console to come back' }).waitFor()
  })

  it('ends after a bounded time when the host is killed, then stops trying', async () => {
    const script = fileURLToPath(new URL('./web-console-host.ts', import.meta.url))
    const host = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    hosts.push(host)
    const lines = createInterface({ input: host.stdout! })[Symbol.asyncIterator]()
    const line = (await lines.next()).value as string
    const { url } = JSON.parse(line) as { url: string }
    const page = await browser.newPage()
    // The page's own clock, so the backoff and the give-up can be run through at once.
    await page.clock.install()
    const seen = watch(page)
    await page.goto(url)
    await page.getByRole('heading', { name: 'What should the release be called?' }).waitFor()
    host.kill('SIGKILL')
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Reconnecting…')
    for (let step = 0; step < 20 && !(await ended(page).isVisible()); step++) {
      await page.clock.runFor(5_000)
      // Each attempt fails on the real network, not on the page's clock.
      await page.waitForTimeout(100)
    }
    await ended(page).waitFor()
    const attempts = seen.sockets
    const errors = seen.errors.length
    console.info(`killed host: ${attempts} sockets, ${errors} console errors before the end`)
    // First connection, then a bounded number of retries: 250 ms doubling to 5 s within 30 s.
    expect(attempts).toBeGreaterThan(2)
    expect(attempts).toBeLessThanOrEqual(1 + 10)
    await page.clock.runFor(600_000)
    await page.waitForTimeout(500)
    expect(seen.sockets).toBe(attempts)
    expect(seen.errors).toHaveLength(errors)
  })

  it('counts down the time left on an ask with a deadline', async () => {
    const { seam, web } = await browser.serve({ timeoutMs: 10 * 60_000 })
    const page = await browser.newPage()
    await addDeadlines(page.context(), seam)
    await page.clock.install()
    await page.goto(web.url)
    void settle(seam.ask({ questions: [{ id: 'name', question: 'Release name?' }] }))
    const countdown = page.locator('.card .deadline')
    await expect.poll(() => countdown.textContent()).toMatch(/^(10:00|9:5\d) left$/)
    expect(await countdown.getAttribute('role')).toBe('timer')
    expect(await countdown.getAttribute('data-warning')).toBe('false')
    expect(await page.locator('.queue-item .deadline').textContent()).toMatch(/ left$/)
    await page.clock.runFor(5 * 60_000)
    await expect.poll(() => countdown.textContent()).toMatch(/^(5:00|4:5\d) left$/)
    // The last tenth of the time: a warning.
    await page.clock.runFor(4 * 60_000 + 10_000)
    await expect.poll(() => countdown.getAttribute('data-warning')).toBe('true')
    await page.clock.runFor(60_000)
    await expect.poll(() => countdown.textContent()).toBe('Time is up')
  })

  it('shows no countdown for an ask without a deadline', async () => {
    const { seam, web } = await browser.serve()
    const page = await browser.newPage()
    await addDeadlines(page.context(), seam)
    await page.goto(web.url)
    void settle(seam.ask({ questions: [{ id: 'name', question: 'Release name?' }] }))
    await page.getByRole('heading', { name: 'Release name?' }).waitFor()
    expect(await page.locator('.deadline').count()).toBe(0)
  })
})
