import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { deploymentPlan, deploymentQuestions, planReviewQuestion } from '../../src/cli/scenario.js'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import { settle, useChromium } from './web-console-harness.js'

/**
 * What the console shows, checked in Chromium: the plan's markdown as
 * formatted text with nothing from it ever running, an axe-core audit of
 * every view in light and dark, a 390 px phone layout, names that match what
 * is visible, and a queue that stays small whatever the question's length.
 * The context bypasses the page's CSP so axe can be injected; the markdown
 * must therefore stay inert on its own, without the policy's help.
 */

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js')
const browser = useChromium({ bypassCSP: true })

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/** Runs axe-core in the page; the violations of impact serious or critical, readably. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: axePath })
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe
    return (await axe.run()).violations
  })
  return (violations as AxeViolation[])
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
          .map((node) => node.target.join(' '))
          .join(', ')}`,
    )
}

const hostilePlan = [
  '# Plan <img src=x onerror="window.__pwned = 1">',
  '',
  '<script>window.__pwned = 2</script>',
  '',
  '<div onclick="window.__pwned = 3" id="raw-div">raw block</div>',
  '',
  '1. Step with [a link](javascript:window.__pwned=4) and [another](JaVaScRiPt:window.__pwned=5)',
  '2. Step with ![an image](https://example.com/x.png "t") and <b onmouseover="window.__pwned=6">bold</b>',
  '3. A [real link](https://example.com/docs?a=1&b=2)',
  '',
  '[data](data:text/html,<script>window.__pwned=7</script>) <iframe src="javascript:window.__pwned=8"></iframe>',
].join('\n')

const planQuestion = (detail: string): AskUserQuestionItem => ({
  ...planReviewQuestion('x'),
  detail,
})

describe('console page in Chromium: what it shows', () => {
  it('renders the plan as formatted text: headings, lists, emphasis, code, links', async () => {
    const { seam, page } = await browser.open()
    const plan = [
      deploymentPlan('eu-west-1', ['Smoke tests']),
      '',
      '## Rollback',
      '',
      '- Keep **v2.3.9** warm',
      '- Run `kubectl rollout undo` &amp; check',
      '',
      'See <https://example.com/runbook>.',
    ].join('\n')
    void settle(seam.ask({ questions: [planQuestion(plan)] }))
    const card = page.locator('.card[data-state="planReview"] .plan-text')
    await card
      .getByRole('heading', { level: 3, name: 'Deploy checkout-service v2.4.0 to eu-west-1' })
      .waitFor()
    expect(await card.getByRole('heading', { level: 4, name: 'Rollback' }).count()).toBe(1)
    expect(await card.locator('ol > li').count()).toBe(4)
    expect(await card.locator('ul > li').allTextContents()).toEqual([
      'Keep v2.3.9 warm',
      'Run kubectl rollout undo & check',
    ])
    expect(await card.locator('strong').textContent()).toBe('v2.3.9')
    expect(await card.locator('code').textContent()).toBe('kubectl rollout undo')
    const link = card.getByRole('link', { name: 'https://example.com/runbook' })
    expect(await link.getAttribute('href')).toBe('https://example.com/runbook')
    expect(await link.getAttribute('target')).toBe('_blank')
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer')
  })

  it('never runs anything from a hostile plan, and no element of its raw HTML appears', async () => {
    const { seam, page } = await browser.open()
    const asked = settle(seam.ask({ questions: [planQuestion(hostilePlan)] }))
    const plan = page.locator('.card[data-state="planReview"] .plan-text')
    await plan.getByRole('heading', { level: 3 }).waitFor()
    // Raw HTML is shown as the text it is.
    expect(await plan.getByRole('heading', { level: 3 }).textContent()).toBe(
      'Plan <img src=x onerror="window.__pwned = 1">',
    )
    expect(await plan.textContent()).toContain('<script>window.__pwned = 2</script>')
    expect(
      await plan.locator('img, script, iframe, div#raw-div, b, [onclick], [onerror]').count(),
    ).toBe(0)
    expect(
      await page.evaluate(() =>
        [...document.querySelectorAll('*')].some((element) =>
          [...element.attributes].some((attribute) => attribute.name.startsWith('on')),
        ),
      ),
    ).toBe(false)
    // Only the https link is a link; the javascript: and data: ones are text.
    const hrefs = await plan
      .locator('a')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')))
    expect(hrefs).toEqual(['https://example.com/docs?a=1&b=2'])
    expect(await plan.textContent()).toContain('a link')
    expect(await plan.textContent()).toContain('[image: an image]')
    // Hover, click and focus everything in the plan: still nothing runs.
    for (const element of await plan.locator('.md-link-text, .md-image, .md-raw, h3').all()) {
      await element.hover()
      await element.click({ trial: false, noWaitAfter: true, force: true })
    }
    await page.waitForTimeout(200)
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
    await page.getByRole('button', { name: 'Approve', exact: true }).click()
    expect((await asked).value).toEqual({ answers: [{ id: 'plan', selected: ['Approve'] }] })
  })

  it('names what is visible: an h1, and a button named with the other option, Revise', async () => {
    const { seam, page } = await browser.open()
    void settle(seam.ask({ questions: [planReviewQuestion(deploymentPlan('eu-west-1', []))] }))
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('askseam console')
    const refuse = page.getByRole('button', { name: /Revise/ })
    await refuse.waitFor()
    expect(await refuse.textContent()).toBe('Revise')
    expect(await refuse.evaluate((button) => button.getAttribute('aria-label'))).toBeNull()
  })

  it('keeps a long question with no header small in the queue', async () => {
    const { seam, page } = await browser.open()
    const long = `${'Should the migration '.repeat(2000)}go ahead?`
    void settle(seam.ask({ questions: [{ id: 'long', question: long }] }))
    const item = page.locator('.queue-item').first()
    await item.waitFor()
    const box = await item.boundingBox()
    expect(box?.height).toBeLessThan(160)
    // Its name is its text, clamped too: a screen reader does not read 40,000 characters.
    expect(((await item.textContent()) ?? '').length).toBeLessThan(400)
  })

  for (const width of [390, 320]) {
    it(`fits a ${width} px phone: no horizontal scroll, every action on screen`, async () => {
      const { seam, web } = await browser.serve()
      const page = await browser.newPage()
      await page.setViewportSize({ width, height: 800 })
      await page.goto(web.url)
      void settle(seam.ask({ questions: deploymentQuestions }))
      void settle(seam.ask({ questions: [planReviewQuestion(deploymentPlan('eu-west-1', []))] }))
      await page.locator('.card[data-state="answering"]').waitFor()
      const overflow = () =>
        page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        )
      expect(await overflow()).toBeLessThanOrEqual(0)
      await page.getByRole('radio', { name: 'us-east-1', exact: true }).click()
      expect(await overflow()).toBeLessThanOrEqual(0)
      await page.getByRole('button', { name: /Plan review/ }).click()
      await page.locator('.card[data-state="planReview"]').waitFor()
      expect(await overflow()).toBeLessThanOrEqual(0)
      // Every action button is on screen, none cut off at the right edge.
      const outside = await page.evaluate(
        (limit) =>
          [...document.querySelectorAll('.actions .button')]
            .map((button) => button.getBoundingClientRect())
            .filter((rect) => rect.right > limit || rect.left < 0).length,
        width,
      )
      expect(outside).toBe(0)
    })
  }

  it('hides the 1–9 key badges and key hints on a touch screen', async () => {
    const { seam, web } = await browser.serve()
    const page = await browser.newPage()
    const session = await browser.context.newCDPSession(page)
    await session.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 })
    await session.send('Emulation.setEmitTouchEventsForMouse', { enabled: true })
    await page.goto(web.url)
    void settle(seam.ask({ questions: deploymentQuestions }))
    await page.locator('.option').first().waitFor()
    const coarse = await page.evaluate(
      () => matchMedia('(hover: none) and (pointer: coarse)').matches,
    )
    expect(coarse).toBe(true)
    expect(await page.locator('.option-key').first().isVisible()).toBe(false)
    expect(await page.locator('.keys').isVisible()).toBe(false)
    const desktop = await browser.newPage(web.url)
    await desktop.locator('.option').first().waitFor()
    expect(await desktop.locator('.option-key').first().isVisible()).toBe(true)
  })
})

/** WCAG contrast ratio of two computed `rgb(...)` colours. */
function contrastScript() {
  const channels = (color: string) => (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number)
  const luminance = (color: string) => {
    const [r = 0, g = 0, b = 0] = channels(color).map((value) => {
      const c = value / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  return (a: string, b: string) => {
    const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
    return (high + 0.05) / (low + 0.05)
  }
}

describe('control edges and focus rings: 3:1 against their background (WCAG 1.4.11)', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(scheme, async () => {
      const { seam, page } = await browser.open()
      await page.emulateMedia({ colorScheme: scheme })
      void settle(seam.ask({ questions: deploymentQuestions }))
      await page.locator('.option').first().waitFor()
      const ratios = await page.evaluate(`(() => {
        const contrast = (${contrastScript.toString()})()
        const panel = getComputedStyle(document.querySelector('.card')).backgroundColor
        const edges = [...document.querySelectorAll('.option, .custom-input, .step, .button:not(.ghost):not(.primary):not(:disabled), .queue-item, .option-mark')]
          .map((element) => [element.className, contrast(getComputedStyle(element).borderTopColor, panel)])
        const option = document.querySelector('.option')
        option.focus()
        const ring = contrast(getComputedStyle(option).outlineColor, panel)
        return { edges, ring }
      })()`)
      const { edges, ring } = ratios as { edges: [string, number][]; ring: number }
      expect(edges.length).toBeGreaterThan(5)
      expect(edges.filter(([, ratio]) => ratio < 3)).toEqual([])
      expect(ring).toBeGreaterThanOrEqual(3)
    })
  }
})

describe('axe-core audit: no serious or critical violation', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`batch, multi-select, free text and plan review, ${scheme}`, async () => {
      const { seam, page } = await browser.open()
      await page.emulateMedia({ colorScheme: scheme })
      void settle(seam.ask({ questions: deploymentQuestions }))
      void settle(
        seam.ask({ questions: [planReviewQuestion(deploymentPlan('eu-west-1', ['Smoke tests']))] }),
      )
      await page.locator('.card[data-state="answering"]').waitFor()
      const views: Record<string, string[]> = {}
      views['batch (single choice)'] = await seriousViolations(page)
      await page.getByRole('radio', { name: 'us-east-1', exact: true }).click()
      await page.getByRole('checkbox', { name: 'Load test' }).click()
      views['multi-select'] = await seriousViolations(page)
      await page.getByRole('button', { name: 'Next', exact: true }).click()
      await page.getByLabel('Your answer').fill('Announce it')
      views['free text'] = await seriousViolations(page)
      await page.getByRole('button', { name: /Plan review/ }).click()
      await page.locator('.card[data-state="planReview"]').waitFor()
      views['plan review'] = await seriousViolations(page)
      await page.getByRole('button', { name: 'Discuss instead', exact: true }).click()
      await page.getByRole('button', { name: 'Dismiss all' }).click()
      await page.locator('.stage .sent').waitFor()
      // The toast fades in: audit its colours once it has finished, not mid-transition.
      await page.waitForFunction(() =>
        document.getAnimations().every((animation) => animation.playState !== 'running'),
      )
      views['sent'] = await seriousViolations(page)
      expect(views).toEqual({
        'batch (single choice)': [],
        'multi-select': [],
        'free text': [],
        'plan review': [],
        sent: [],
      })
    })
  }

  it('the restarting view, with its question kept', async () => {
    const seam = createUserQuestions({ providerGraceMs: 60_000 })
    // Not the session's console: the test closes it itself.
    const web = await startWebConsole({ seam })
    const page = await browser.newPage(web.url)
    void settle(seam.ask({ questions: deploymentQuestions }))
    await page.locator('.card[data-state="answering"]').waitFor()
    await web.close()
    await page.locator('.offline-text').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await seam.close()
  })

  it('the session-ended view, from a console closed with sessionEnded', async () => {
    const seam = createUserQuestions()
    // Not the session's console: the test closes it itself.
    const web = await startWebConsole({ seam })
    const page = await browser.newPage(web.url)
    await page.locator('.status[data-state="online"]').waitFor()
    await web.close({ sessionEnded: true })
    await page.getByRole('heading', { name: "The agent's session ended" }).waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await seam.close()
  })
})
