/**
 * Takes the web console screenshots in docs/ with Debian's Chromium: the
 * batch view mid-answer in light and dark, the same on a 390 px touch phone,
 * and the plan-review card in light and dark.
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
const seam = createUserQuestions({ agents, timeoutMs: 15 * 60_000 })
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

try {
  await (await desktop('light')).close()
  await (await desktop('dark')).close()
  const phone = await browser.newContext({
    // Tall enough for a whole card: a full-page capture would drop the touch emulation.
    viewport: { width: 390, height: 1400 },
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
  })
  await addDeadlines(phone, seam)
  const page = await phone.newPage()
  await answerSome(page)
  await shoot(page, 'web-console-phone.png', false)
  await page.getByRole('button', { name: /Plan review/ }).click()
  await page.locator('.card[data-state="planReview"]').waitFor()
  await shoot(page, 'web-console-phone-plan-review.png', false)
  await phone.close()
  // The end of a session: every ask answered (Sent ✓), then the host gone.
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
  // The toast says the same; hide it without its fade so the capture shows the card alone.
  await done.locator('.toast').evaluate((toast) => {
    toast.style.transition = 'none'
    toast.classList.remove('visible')
  })
  await shoot(done, 'web-console-sent.png', false)
  await web.close()
  await done.getByRole('heading', { name: "The agent's session ended" }).waitFor()
  await shoot(done, 'web-console-ended.png', false)
  await last.close()
  console.log(`wrote ${written.map((name) => `docs/${name}`).join(', ')}`)
} finally {
  await browser.close()
  controller.abort()
  await Promise.all(asks)
  await web.close()
}
