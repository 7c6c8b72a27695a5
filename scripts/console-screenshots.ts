/**
 * Takes the web console screenshots in docs/ with Debian's Chromium: the
 * batch view mid-answer and the plan-review card.
 *
 *   npm run console:screenshots
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { deploymentPlan, deploymentQuestions, planReviewQuestion } from '../src/cli/scenario.js'
import { createAgentRegistry, createUserQuestions } from '../src/protocol/index.js'
import { startWebConsole } from '../src/providers/web/index.js'

const docs = fileURLToPath(new URL('../docs/', import.meta.url))
const agents = createAgentRegistry()
const agent = { id: 'deploy-agent' }
agents.enter(agent)
const seam = createUserQuestions({ agents })
const web = await startWebConsole({ seam })
const controller = new AbortController()
const asks = [
  seam.ask({ questions: deploymentQuestions, agent, signal: controller.signal }),
  seam.ask({
    questions: [planReviewQuestion(deploymentPlan('eu-west-1', ['Smoke tests', 'Load test']))],
    agent,
    signal: controller.signal,
  }),
].map((ask) => ask.catch(() => undefined))

const profile = mkdtempSync(join(tmpdir(), 'askseam-shots-'))
const executablePath = execFileSync('sh', ['-c', 'command -v chromium'], {
  encoding: 'utf8',
}).trim()
const context = await chromium.launchPersistentContext(profile, {
  executablePath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  viewport: { width: 1200, height: 820 },
  deviceScaleFactor: 1,
})
try {
  const page = await context.newPage()
  await page.goto(web.url)
  await page.getByRole('radio', { name: 'eu-west-1 (Recommended)' }).click()
  await page.getByRole('checkbox', { name: 'Smoke tests' }).click()
  await page.getByRole('checkbox', { name: 'Database migration dry run' }).click()
  await page
    .locator('.progress-bar')
    .evaluate((bar) => bar.getAnimations().forEach((a) => a.finish()))
  await page.mouse.move(0, 0)
  await page.screenshot({ path: `${docs}web-console-batch.png` })
  await page.getByRole('button', { name: /Plan review/ }).click()
  await page.mouse.move(0, 0)
  await page.screenshot({ path: `${docs}web-console-plan-review.png` })
  console.log(`wrote ${docs}web-console-batch.png and ${docs}web-console-plan-review.png`)
} finally {
  await context.close()
  rmSync(profile, { recursive: true, force: true })
  controller.abort()
  await Promise.all(asks)
  await web.close()
}
