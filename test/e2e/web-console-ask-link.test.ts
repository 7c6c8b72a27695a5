/**
 * A link to one ask, as askseam/notify's webhooks write it
 * (`${consoleUrl}#ask=${askId}`): the console page opened with it selects
 * that ask, and a fragment changed later selects the ask it names.
 */
import { describe, expect, it } from 'vitest'
import { useChromium } from './web-console-harness.js'

const browser = useChromium()

const question = (id: string, header: string) => ({
  id,
  header,
  question: `Which ${header.toLowerCase()}?`,
  options: [{ label: 'One' }, { label: 'Two' }],
})

describe('web console links to one ask', () => {
  it('selects the ask a #ask= fragment names, on load and when the fragment changes', async () => {
    const { seam, web } = await browser.serve()
    void seam.ask({ questions: [question('region', 'Region')] }).catch(() => undefined)
    void seam.ask({ questions: [question('size', 'Size')] }).catch(() => undefined)
    await expect.poll(() => seam.pending().length).toBe(2)
    const [first, second] = seam.pending()
    const page = await browser.newPage(`${web.url}#ask=${encodeURIComponent(second!.askId)}`)
    const current = page.locator('.queue-item[aria-current="true"] .queue-item-title')
    await expect.poll(() => page.locator('.queue-item').count()).toBe(2)
    await expect.poll(() => current.textContent()).toBe('Size')
    await page.evaluate((askId) => {
      location.hash = `ask=${encodeURIComponent(askId)}`
    }, first!.askId)
    await expect.poll(() => current.textContent()).toBe('Region')
  })
})
