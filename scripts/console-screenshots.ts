/**
 * Takes the web console screenshots in docs/ with Debian's Chromium: the
 * batch view mid-answer and the plan-review card, each on the desktop and on
 * a 390 px touch phone, in light and dark; then Sent ✓, and a tab whose
 * console is restarting.
 *
 *   npm run console:screenshots
 */
import { chromium } from 'playwright-core'
import type { BrowserContext, Page } from 'playwright-core'
import { deploymentPlan, deploymentQuestions, planReviewQuestion } from '../src/cli/scenario.js'
import { createAgentRegistry, createUserQuestions } from '../src/protocol/index.js'
import { startWebConsole } from '../src/providers/web/index.js'
import { addDeadlines, debianChromium } from '../test/e2e/web-console-harness.js'

const docs = new URL('../docs/', import.meta.url).pathname
const agents = createAgentRegistry()
const agent = { id: 'deploy-agent' }
agents.enter(agent)
// A deadline, so the countdown shows as it would in a real session.
// The grace keeps the last question pending while the console restarts, as a durable store does.
const seam = createUserQuestions({ agents, timeoutMs: 15 * 60_000, providerGraceMs: 60_000 })
const web = await startWebConsole({ seam })
const controller = new AbortController()
const asks = [
  seam.ask({ questions: deploymentQuestions, agent, signal: controller.signal }),
  seam.ask({
    questions: [
      planReviewQuestion(
        [
          deploymentPlan('eu-west-1', ['Smoke tests', 'Load test']),
          '',
          '## Rollback',
          '',
          '- Keep **v2.3.9** warm; `kubectl rollout undo` brings it back',
          '- Runbook: <https://example.com/runbooks/checkout>',
        ].join('\n'),
      ),
    ],
    agent,
    signal: controller.signal,
  }),
].map((ask) => ask.catch(() => undefined))

const browser = await chromium.launch(debianChromium())
const written: string[] = []

async function shoot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.mouse.move(0, 0).catch(() => undefined)
  await page
    .locator('.progress-bar')
    .evaluateAll((bars) => bars.forEach((bar) => bar.getAnimations().forEach((a) => a.finish())))
  await page.screenshot({ path: `${docs}${name}`, fullPage })
  written.push(name)
}

/** The batch mid-answer: a region chosen, two checks ticked. */
async function answerSome(page: Page): Promise<void> {
  await page.goto(web.url)
  await page.getByRole('radio', { name: 'eu-west-1 (Recommended)' }).click()
  await page.getByRole('checkbox', { name: 'Smoke tests' }).click()
  await page.getByRole('checkbox', { name: 'Database migration dry run' }).click()
}

async function desktop(scheme: 'light' | 'dark'): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: 1200, height: 820 },
    deviceScaleFactor: 1,
    colorScheme: scheme,
  })
  await addDeadlines(context, seam)
  const page = await context.newPage()
  await answerSome(page)
  const suffix = scheme === 'dark' ? '-dark' : ''
  await shoot(page, `web-console-batch${suffix}.png`)
  await page.getByRole('button', { name: /Plan review/ }).click()
  await page.locator('.card[data-state="planReview"]').waitFor()
  await shoot(page, `web-console-plan-review${suffix}.png`)
  return context
}

async function phone(scheme: 'light' | 'dark'): Promise<void> {
  const context = await browser.newContext({
    // Tall enough for a whole card: a full-page capture would drop the touch emulation.
    viewport: { width: 390, height: 1400 },
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
    colorScheme: scheme,
  })
  await addDeadlines(context, seam)
  const page = await context.newPage()
  await answerSome(page)
  const suffix = scheme === 'dark' ? '-dark' : ''
  await shoot(page, `web-console-phone${suffix}.png`, false)
  await page.getByRole('button', { name: /Plan review/ }).click()
  await page.locator('.card[data-state="planReview"]').waitFor()
  await shoot(page, `web-console-phone-plan-review${suffix}.png`, false)
  await context.close()
}

try {
  await (await desktop('light')).close()
  await (await desktop('dark')).close()
  await phone('light')
  await phone('dark')
  // The end of a session: every ask answered (Sent ✓), then the console stopped for a restart.
  const last = await browser.newContext({ viewport: { width: 1200, height: 640 } })
  const done = await last.newPage()
  await done.goto(web.url)
  await done
    .getByRole('button', { name: 'Approve', exact: true })
    .or(done.getByRole('radio').first())
    .first()
    .waitFor()
  await done.getByRole('button', { name: /Plan review/ }).click()
  await done.getByRole('button', { name: 'Approve', exact: true }).click()
  await done.getByRole('radio', { name: 'eu-west-1 (Recommended)' }).click()
  await done.getByRole('checkbox', { name: 'Smoke tests' }).click()
  await done.getByRole('button', { name: 'Next', exact: true }).click()
  await done.getByLabel('Your answer').fill('Post in #deploys')
  await done.getByLabel('Your answer').press('Enter')
  await done.locator('.stage .sent').waitFor()
  // The approval's toast (another ask was waiting then) fades first: the capture shows this one.
  await done.locator('.toast:not(.visible)').waitFor({ state: 'attached', timeout: 10_000 })
  await done.waitForTimeout(400)
  await shoot(done, 'web-console-sent.png', false)
  // The console stops gracefully (as on Ctrl-C) while a question waits: the tab keeps it.
  void seam
    .ask({ questions: deploymentQuestions, agent, signal: controller.signal })
    .catch(() => undefined)
  await done.locator('.card[data-state="answering"]').waitFor()
  await done.getByRole('radio', { name: 'eu-west-1 (Recommended)' }).click()
  await web.close()
  await done.getByText('The console is restarting.').waitFor()
  await shoot(done, 'web-console-restarting.png', false)
  await last.close()
  console.log(`wrote ${written.map((name) => `docs/${name}`).join(', ')}`)
} finally {
  await browser.close()
  controller.abort()
  await Promise.all(asks)
  await web.close()
}
