import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { deploymentQuestions } from '../../src/cli/scenario.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import { readScreen, settle, useChromium } from './web-console-harness.js'

/**
 * The console's keyboard model in Chromium: each option group is one Tab
 * stop, arrows move focus inside it without choosing, Enter on a single
 * choice chooses and moves on, Space toggles on a multi-select and Enter
 * confirms the question; a disabled Submit says what is still open.
 */

const browser = useChromium()

/** The accessible name (aria-label, else text) of the focused element. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement
    return element?.getAttribute('aria-label') ?? element?.textContent ?? ''
  })

const counter = (page: Page) => page.locator('.counter').textContent()

describe('console keyboard model', () => {
  it('makes each option group one Tab stop, whose arrows move focus without choosing', async () => {
    const { seam, page } = await browser.open()
    void settle(seam.ask({ questions: deploymentQuestions }))
    await expect.poll(() => focused(page)).toBe('eu-west-1 (Recommended)')
    const tabStops = await page.evaluate(() =>
      [...document.querySelectorAll('.options [role="radio"]')].map((option) =>
        option.getAttribute('tabindex'),
      ),
    )
    expect(tabStops.filter((stop) => stop === '0')).toHaveLength(1)
    expect(tabStops.length).toBeGreaterThan(1)
    await page.keyboard.press('ArrowDown')
    expect(await focused(page)).toBe('us-east-1')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowUp')
    expect(await focused(page)).toBe('us-east-1')
    await page.keyboard.press('End')
    const last = deploymentQuestions[0]!.options!.at(-1)!.label
    expect(await focused(page)).toBe(last)
    await page.keyboard.press('ArrowDown')
    expect(await focused(page)).toBe('eu-west-1 (Recommended)')
    // Moving chose nothing; still question 1.
    expect(await readScreen(page)).toMatchObject({ index: 0, checked: [] })
    // Tab leaves the group at once, to the own-answer field; Shift+Tab comes back to the same option.
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('custom-input')
    await page.keyboard.press('Shift+Tab')
    expect(await focused(page)).toBe('us-east-1')
  })

  it('Enter on a single choice chooses it and moves on', async () => {
    const { seam, page } = await browser.open()
    const asked = settle(seam.ask({ questions: deploymentQuestions }))
    await expect.poll(() => focused(page)).toBe('eu-west-1 (Recommended)')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect.poll(() => counter(page)).toBe('Question 2 of 3')
    // Back on question 1, the group's Tab stop is the chosen option.
    await page.getByRole('button', { name: 'Back', exact: true }).click()
    expect(await readScreen(page)).toMatchObject({ index: 0, checked: ['us-east-1'] })
    const stop = await page.evaluate(
      () => document.querySelector('.options [tabindex="0"]')?.getAttribute('aria-label') ?? '',
    )
    expect(stop).toBe('us-east-1')
    await page.getByRole('button', { name: 'Dismiss all' }).click()
    expect((await asked).error?.code).toBe('ASK_CANCELLED')
  })

  it('Space toggles on a multi-select and Enter confirms the question without toggling', async () => {
    const { seam, page } = await browser.open()
    const asked = settle(seam.ask({ questions: deploymentQuestions }))
    await expect.poll(() => focused(page)).toBe('eu-west-1 (Recommended)')
    await page.keyboard.press('Enter')
    await expect.poll(() => counter(page)).toBe('Question 2 of 3')
    await expect.poll(() => focused(page)).toBe('Smoke tests')
    await page.keyboard.press('Space')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Space')
    expect(await readScreen(page)).toMatchObject({ checked: ['Smoke tests', 'Load test'] })
    await page.keyboard.press('Enter')
    await expect.poll(() => counter(page)).toBe('Question 3 of 3')
    await page.keyboard.type('Ship it')
    await page.keyboard.press('Enter')
    expect((await asked).value).toEqual({
      answers: [
        { id: 'region', selected: ['eu-west-1 (Recommended)'] },
        { id: 'checks', selected: ['Smoke tests', 'Load test'] },
        { id: 'announce', selected: [], custom: 'Ship it' },
      ],
    })
  })

  it('a disabled Submit names the questions still open', async () => {
    const { seam, page } = await browser.open()
    void settle(seam.ask({ questions: deploymentQuestions }))
    const submit = page.getByRole('button', { name: 'Submit', exact: true })
    await expect
      .poll(() => page.locator('.submit-hint').textContent())
      .toBe('Answer questions 1, 2 and 3 to submit')
    expect(await submit.isDisabled()).toBe(true)
    // The hint is the button's description, so a screen reader hears it on the disabled button.
    const described = await submit.evaluate(
      (button) =>
        document.getElementById(button.getAttribute('aria-describedby') ?? '')?.textContent,
    )
    expect(described).toBe('Answer questions 1, 2 and 3 to submit')
    await page.getByRole('radio', { name: 'us-east-1', exact: true }).click()
    await page.getByRole('button', { name: 'Skip', exact: true }).click()
    await expect
      .poll(() => page.locator('.submit-hint').textContent())
      .toBe('Answer question 3 to submit')
    await page.getByLabel('Your answer').fill('Done')
    await expect.poll(() => submit.isEnabled()).toBe(true)
    expect(await page.locator('.submit-hint').textContent()).toBe('')
  })

  it('badges a recommended option while its label, the value, stays exactly as written', async () => {
    const { seam, page } = await browser.open()
    const questions: AskUserQuestionItem[] = [
      {
        id: 'db',
        question: 'Which database?',
        options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
      },
    ]
    const asked = settle(seam.ask({ questions }))
    const option = page.getByRole('radio', { name: 'Postgres (Recommended)', exact: true })
    await expect.poll(() => option.locator('.badge').textContent()).toBe('Recommended')
    expect(await option.locator('.option-label').textContent()).toBe('Postgres')
    expect(await page.locator('.badge').count()).toBe(1)
    await option.click()
    await page.getByRole('button', { name: 'Submit', exact: true }).click()
    expect((await asked).value).toEqual({
      answers: [{ id: 'db', selected: ['Postgres (Recommended)'] }],
    })
  })
})
