import { describe, expect, it } from 'vitest'
import { deploymentPlan, deploymentQuestions, planReviewQuestion } from '../../src/cli/scenario.js'
import { createAgentRegistry } from '../../src/protocol/index.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import { readScreen, settle, useChromium } from './web-console-harness.js'

const browser = useChromium()

async function start() {
  const agents = createAgentRegistry()
  const { seam, web } = await browser.serve({ agents })
  return { seam, web, agents }
}

const plan = planReviewQuestion(deploymentPlan('eu-west-1', ['Smoke tests', 'Load test']))

describe('web console in Chromium', () => {
  it('answers a batch through the page and hands the caller the canonical answer', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const asked = seam.ask({ questions: deploymentQuestions })
    await page.getByRole('radio', { name: 'us-east-1', exact: true }).click()
    await expect.poll(() => page.locator('.counter').textContent()).toBe('Question 2 of 3')
    await page.getByRole('checkbox', { name: 'Load test' }).click()
    await page.getByRole('checkbox', { name: 'Smoke tests' }).click()
    await page.getByRole('button', { name: 'Next', exact: true }).click()
    await page.getByLabel('Your answer').fill('Mention the new region')
    await page.getByLabel('Your answer').press('Enter')
    expect(await asked).toEqual({
      answers: [
        { id: 'region', selected: ['us-east-1'] },
        { id: 'checks', selected: ['Smoke tests', 'Load test'] },
        { id: 'announce', selected: [], custom: 'Mention the new region' },
      ],
    })
    await page.getByRole('heading', { name: 'Nothing to answer right now' }).waitFor()
  })

  it('skips, answers in your own words, and goes back', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const asked = seam.ask({ questions: deploymentQuestions })
    await page.getByRole('button', { name: 'Skip', exact: true }).click()
    await page.getByLabel('Add your own').fill('Canary in one zone first')
    await page.getByRole('button', { name: 'Back', exact: true }).click()
    await page.getByLabel('Or answer in your own words').fill('eu-central-1')
    await page.getByRole('button', { name: 'Question 3: not answered' }).click()
    await page.getByRole('button', { name: 'Skip', exact: true }).click()
    // Question 2 has text only: it is settled, so every question is and Submit is allowed.
    await page.getByRole('button', { name: 'Submit', exact: true }).click()
    expect(await asked).toEqual({
      answers: [
        { id: 'region', selected: [], custom: 'eu-central-1' },
        { id: 'checks', selected: [], custom: 'Canary in one zone first' },
        { id: 'announce', selected: [] },
      ],
    })
  })

  it('works from the keyboard alone: digits pick options, Enter moves on and submits', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const asked = seam.ask({ questions: deploymentQuestions })
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))
    await expect.poll(focused).toBe('eu-west-1 (Recommended)')
    await page.keyboard.press('2')
    await expect.poll(() => page.locator('.counter').textContent()).toBe('Question 2 of 3')
    await expect.poll(focused).toBe('Smoke tests')
    await page.keyboard.press('3')
    // The options are one Tab stop: the next one is the own-answer field.
    await page.keyboard.press('Tab')
    await page.keyboard.type('Staged rollout')
    // Not every question is settled yet: Enter moves on instead of submitting.
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('.counter').textContent()).toBe('Question 3 of 3')
    await page.keyboard.type('Ship it')
    await page.keyboard.press('Enter')
    expect(await asked).toEqual({
      answers: [
        { id: 'region', selected: ['us-east-1'] },
        { id: 'checks', selected: ['Load test'], custom: 'Staged rollout' },
        { id: 'announce', selected: [], custom: 'Ship it' },
      ],
    })
  })

  it('gives every control an accessible name, in the batch view and the plan review', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    void settle(seam.ask({ questions: deploymentQuestions }))
    void settle(seam.ask({ questions: [plan] }))
    const unnamed = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('button, input, textarea, [role="progressbar"]')]
          .filter((control) => {
            const label = control.getAttribute('aria-label')?.trim()
            const text = control.textContent?.trim()
            const labels = (control as HTMLInputElement).labels?.length ?? 0
            return !label && !text && labels === 0
          })
          .map((control) => control.outerHTML),
      )
    await page.locator('.card[data-state="answering"]').waitFor()
    expect(await unnamed()).toEqual([])
    await page.getByRole('button', { name: /Plan review/ }).click()
    await page.locator('.card[data-state="planReview"]').waitFor()
    expect(await unnamed()).toEqual([])
  })

  it('does not submit on Enter while an IME composition is open', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const asked = settle(seam.ask({ questions: [{ id: 'name', question: 'Project name?' }] }))
    const field = page.getByLabel('Your answer')
    await field.fill('かんじ')
    await field.dispatchEvent('compositionstart')
    await field.dispatchEvent('keydown', { key: 'Enter', isComposing: true, keyCode: 229 })
    await field.dispatchEvent('compositionend')
    expect(seam.pending()).toHaveLength(1)
    expect(await readScreen(page)).toMatchObject({ state: 'answering', canSubmit: true })
    await field.press('Enter')
    expect((await asked).value).toEqual({
      answers: [{ id: 'name', selected: [], custom: 'かんじ' }],
    })
  })

  it('reviews a plan: approve, refuse with feedback, discuss', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const card = page.locator('.card[data-state="planReview"]')

    const approved = seam.ask({ questions: [plan] })
    await card
      .getByRole('heading', { name: 'Deploy checkout-service v2.4.0 to eu-west-1' })
      .waitFor()
    await card.getByRole('button', { name: 'Approve', exact: true }).click()
    expect(await approved).toEqual({ answers: [{ id: 'plan', selected: ['Approve'] }] })

    const refused = seam.ask({ questions: [plan] })
    await card.getByLabel('Feedback').fill('Run the load test before the smoke tests')
    await card.getByRole('button', { name: 'Revise', exact: true }).click()
    expect(await refused).toEqual({
      answers: [{ id: 'plan', selected: [], custom: 'Run the load test before the smoke tests' }],
    })

    const revised = seam.ask({ questions: [plan] })
    await card.getByRole('button', { name: 'Revise', exact: true }).click()
    expect(await revised).toEqual({ answers: [{ id: 'plan', selected: ['Revise'] }] })

    const discussed = settle(seam.ask({ questions: [plan] }))
    await card.getByRole('button', { name: 'Discuss instead', exact: true }).click()
    expect((await discussed).error).toMatchObject({
      code: 'ASK_CANCELLED',
      details: { reason: 'discuss' },
    })
  })

  it('offers one decision on a plan: approve, the other option by its label, discuss; nothing else', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const card = page.locator('.card[data-state="planReview"]')
    const shipIt = {
      ...plan,
      options: [
        { label: 'Ship it', description: 'Run the plan as written' },
        { label: 'Rework', description: 'Send it back with changes' },
      ],
      intent: { kind: 'plan-review' as const, approve: 'Ship it' },
    }
    void settle(seam.ask({ questions: [shipIt] }))
    await card.waitFor()
    const buttons = await card.locator('.actions button').allTextContents()
    expect(buttons.sort()).toEqual(['Discuss instead', 'Rework', 'Ship it'])
    // The talk-it-over way is quiet: not styled as a decision.
    expect(await card.getByRole('button', { name: 'Discuss instead' }).getAttribute('class')).toBe(
      'button ghost',
    )
    expect(await card.getByRole('button', { name: 'Ship it' }).getAttribute('class')).toBe(
      'button primary',
    )
    // No list repeating the two options under the plan.
    expect(await card.locator('ul:not(.plan-text ul)').count()).toBe(0)
    expect(await card.textContent()).not.toContain('Send it back with changes')
    expect(await card.getByRole('button', { name: /Skip|Dismiss|Refuse/ }).count()).toBe(0)
  })

  it('sends a plan back with feedback when it offers only approval', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const card = page.locator('.card[data-state="planReview"]')
    const approveOnly = { ...plan, options: [{ label: 'Approve' }] }
    const asked = seam.ask({ questions: [approveOnly] })
    const send = card.getByRole('button', { name: 'Send feedback', exact: true })
    await send.waitFor()
    expect(await send.isDisabled()).toBe(true)
    await card.getByLabel('Feedback').fill('Canary first')
    await card.getByLabel('Feedback').press('Enter')
    expect(await asked).toEqual({ answers: [{ id: 'plan', selected: [], custom: 'Canary first' }] })
  })

  it('shows a one-question ask without Back, Skip, a counter or "Dismiss all"', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const asked = settle(seam.ask({ questions: [{ id: 'name', question: 'Release name?' }] }))
    const card = page.locator('.stage .card')
    await card.getByRole('heading', { name: 'Release name?' }).waitFor()
    expect(await card.locator('.actions button').allTextContents()).toEqual(['Dismiss', 'Submit'])
    expect(await card.locator('.counter, .progress, .steps').count()).toBe(0)
    await card.getByRole('button', { name: 'Dismiss', exact: true }).click()
    expect((await asked).error?.code).toBe('ASK_CANCELLED')
  })

  it('hides the keyboard hints on a 390 px screen, touch or not', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage()
    await page.setViewportSize({ width: 390, height: 800 })
    await page.goto(web.url)
    void settle(seam.ask({ questions: deploymentQuestions }))
    await page.locator('.card[data-state="answering"]').waitFor()
    expect(await page.locator('.keys').isVisible()).toBe(false)
    expect(await page.locator('.option-key').first().isVisible()).toBe(false)
    await page.setViewportSize({ width: 1200, height: 800 })
    await expect.poll(() => page.locator('.keys').isVisible()).toBe(true)
  })

  it('draws an icon in the empty state, not a blank square', async () => {
    const { web } = await start()
    const page = await browser.newPage(web.url)
    const mark = page.locator('.empty .empty-mark')
    await mark.waitFor()
    expect(await mark.locator('svg path').count()).toBe(1)
    expect(await mark.locator('svg circle').count()).toBe(3)
    expect(await mark.evaluate((element) => getComputedStyle(element).backgroundImage)).toBe('none')
  })

  it('marks answered steps with a check, not only a colour', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    void settle(seam.ask({ questions: deploymentQuestions }))
    await page.getByRole('radio', { name: 'us-east-1', exact: true }).click()
    const steps = page.locator('.step')
    await expect.poll(() => steps.first().getAttribute('data-state')).toBe('answered')
    const marks = await steps.evaluateAll((elements) =>
      elements.map((element) => ({
        mark: getComputedStyle(element, '::before').content,
        number: getComputedStyle(element.querySelector('.step-number')!).display,
        background: getComputedStyle(element).backgroundColor,
      })),
    )
    expect(marks[0]).toMatchObject({ mark: '"✓"', number: 'none' })
    expect(marks[1]).toMatchObject({ mark: 'none' })
    expect(marks[1]!.number).not.toBe('none')
    // Filled, not the open step's panel colour.
    expect(marks[0]!.background).not.toBe(marks[1]!.background)
  })

  it('replays the pending question, same ask, after a reload, where the tab left it', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const asked = seam.ask({ questions: deploymentQuestions })
    const { askId } = seam.pending()[0]!
    await page.getByRole('radio', { name: 'us-east-1', exact: true }).click()
    await page.getByRole('checkbox', { name: 'Load test' }).click()
    await page.reload()
    await page.getByRole('heading', { name: deploymentQuestions[1]!.question }).waitFor()
    expect(seam.pending().map((ask) => ask.askId)).toEqual([askId])
    expect(await readScreen(page)).toMatchObject({ index: 1, checked: ['Load test'] })
    await page.getByRole('button', { name: 'Back', exact: true }).click()
    expect(await readScreen(page)).toMatchObject({ index: 0, checked: ['us-east-1'] })
    await page.getByRole('radio', { name: 'eu-west-1 (Recommended)' }).click()
    await page.getByRole('button', { name: 'Next', exact: true }).click()
    await page.getByRole('button', { name: 'Skip', exact: true }).click()
    await page.getByRole('button', { name: 'Submit', exact: true }).click()
    expect(await asked).toEqual({
      answers: [
        { id: 'region', selected: ['eu-west-1 (Recommended)'] },
        { id: 'checks', selected: ['Load test'] },
        { id: 'announce', selected: [] },
      ],
    })
  })

  it('starts the questions over in a new tab, which has no saved progress', async () => {
    const { seam, web } = await start()
    const first = await browser.newPage(web.url)
    void settle(seam.ask({ questions: deploymentQuestions }))
    await first.getByRole('radio', { name: 'us-east-1', exact: true }).click()
    const second = await browser.newPage(web.url)
    await second.getByRole('heading', { name: deploymentQuestions[0]!.question }).waitFor()
    expect(await readScreen(second)).toMatchObject({ index: 0, checked: [] })
  })

  it('lists several pending asks and answers them in any order', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const first = seam.ask({ questions: [{ id: 'a', question: 'First question?' }] })
    const second = seam.ask({ questions: [{ id: 'b', question: 'Second question?' }] })
    const queue = page.getByRole('complementary', { name: 'Pending questions' })
    await expect.poll(() => queue.getByRole('button').count()).toBe(2)
    await queue.getByRole('button', { name: /Second question/ }).click()
    await page.getByLabel('Your answer').fill('two')
    await page.getByLabel('Your answer').press('Enter')
    expect(await second).toEqual({ answers: [{ id: 'b', selected: [], custom: 'two' }] })
    await page.getByRole('heading', { name: 'First question?' }).waitFor()
    await page.getByLabel('Your answer').fill('one')
    await page.getByLabel('Your answer').press('Enter')
    expect(await first).toEqual({ answers: [{ id: 'a', selected: [], custom: 'one' }] })
  })

  it('two tabs: the first answer wins and the question leaves the other tab', async () => {
    const { seam, web } = await start()
    const one = await browser.newPage(web.url)
    const two = await browser.newPage(web.url)
    const asked = seam.ask({ questions: [plan] })
    await two.getByRole('button', { name: 'Approve', exact: true }).waitFor()
    await one.getByRole('button', { name: 'Discuss instead', exact: true }).waitFor()
    await one.getByRole('button', { name: 'Approve', exact: true }).click()
    expect(await asked).toEqual({ answers: [{ id: 'plan', selected: ['Approve'] }] })
    await two.getByRole('heading', { name: 'Nothing to answer right now' }).waitFor()
    await expect.poll(() => two.getByRole('status').last().textContent()).toContain('was answered')
  })

  it('takes the question down when the host aborts the ask', async () => {
    const { seam, web } = await start()
    const page = await browser.newPage(web.url)
    const controller = new AbortController()
    const asked = settle(seam.ask({ questions: deploymentQuestions, signal: controller.signal }))
    await page.getByRole('heading', { name: deploymentQuestions[0]!.question }).waitFor()
    controller.abort()
    expect((await asked).error?.code).toBe('ASK_ABORTED')
    await page.getByRole('heading', { name: 'Nothing to answer right now' }).waitFor()
    await expect.poll(() => page.getByRole('status').last().textContent()).toContain('withdrawn')
  })

  it('renders model-written markup as inert text', async () => {
    const { seam, web, agents } = await start()
    const page = await browser.newPage(web.url)
    const script = '<script>window.__pwned = 1</script>'
    const image = '<img src=x onerror="window.__pwned = 2">'
    const agent = { id: `agent ${image}` }
    agents.enter(agent)
    const hostile: AskUserQuestionItem[] = [
      {
        id: 'x',
        header: script,
        question: `Pick one ${image}`,
        detail: `${script} and ${image}`,
        options: [{ label: script, description: image }, { label: image }],
      },
    ]
    const asked = seam.ask({ questions: hostile, agent })
    await page.getByRole('heading', { name: `Pick one ${image}` }).waitFor()
    await expect.poll(() => page.locator('.detail').textContent()).toBe(`${script} and ${image}`)
    expect(await page.locator('.chip').textContent()).toBe(script)
    expect(await page.locator('.session').textContent()).toBe(`Session agent ${image}`)
    expect(await page.locator('.stage img, .stage script').count()).toBe(0)
    await page.getByRole('radio', { name: script }).click()
    await page.getByRole('button', { name: 'Submit', exact: true }).click()
    expect(await asked).toEqual({ answers: [{ id: 'x', selected: [script] }] })
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
    // Defence in depth: even markup that did reach the DOM could not run, under the page's CSP.
    const blocked = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          document.addEventListener('securitypolicyviolation', (event) =>
            resolve(event.violatedDirective),
          )
          document.body.insertAdjacentHTML(
            'beforeend',
            '<img src="data:," onerror="window.__pwned = 3">',
          )
        }),
    )
    expect(blocked).toMatch(/^(img-src|script-src)/)
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
  })

  it('gives nothing to a wrong or missing token', async () => {
    const { seam, web } = await start()
    void settle(seam.ask({ questions: [{ id: 'secret', question: 'The secret question?' }] }))
    const wrong = await browser.newPage(web.url.replace(/token=[^&]+/, 'token=guess'))
    expect(await wrong.textContent('body')).toContain('needs its token')
    const missing = await browser.newPage(web.url.replace(/\?.*$/, ''))
    expect(await missing.textContent('body')).not.toContain('secret')
    // Even script running on the console's own origin cannot open the socket without the token.
    const refused = await wrong.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const socket = new WebSocket(url)
          socket.onopen = () => resolve('open')
          socket.onerror = () => resolve('refused')
        }),
      web.wsUrl.replace(/token=[^&]+/, 'token=guess'),
    )
    expect(refused).toBe('refused')
    expect(web.relay.clientCount()).toBe(0)
  })
})
