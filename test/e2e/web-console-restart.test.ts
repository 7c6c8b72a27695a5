/**
 * Ctrl-C in `askseam console`, seen from an open tab in Chromium: the tab
 * says the console is restarting and keeps the question it shows, where the
 * user left it; when the console runs again on the same port and token the
 * tab reconnects by itself and the question is answered there. The ask is a
 * keyed one on a SQLite store, raised by another process (this one).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deploymentQuestions } from '../../src/cli/scenario.js'
import { createUserQuestions } from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'
import {
  consoleToken,
  freePort,
  startConsole as startConsoleProcess,
} from '../support/console-process.js'
import { readScreen, useChromium } from './web-console-harness.js'

const browser = useChromium()
const cleanups: Array<() => void | Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const startConsole = (args: string[]) => startConsoleProcess(args, (stop) => cleanups.push(stop))

describe('askseam console stopped with Ctrl-C, in Chromium', () => {
  it('the tab says it is restarting, keeps the question where it was, and answers it once the console is back', async () => {
    const temp = tempDirectory()
    cleanups.push(() => temp.remove())
    const file = temp.file()
    const port = await freePort()
    const token = consoleToken()
    const args = ['--store', file, '--port', String(port), '--token', token]
    const store = createSqliteStore({ path: file })
    // A keyed ask on a durable store waits for a UI; the waits cover a seam that does not yet.
    const seam = createUserQuestions({ store, waitForProviderMs: 60_000, providerGraceMs: 60_000 })
    cleanups.push(async () => {
      await seam.close()
      await store.close()
    })

    const first = await startConsole(args)
    const page = await browser.newPage(first.url)
    const asked = seam.ask({ key: 'restart-in-chromium', questions: deploymentQuestions })
    await page.getByRole('radio', { name: 'us-east-1', exact: true }).click()
    await page.getByRole('heading', { name: deploymentQuestions[1]!.question }).waitFor()

    first.child.kill('SIGINT')
    await new Promise((resolve) => first.child.once('exit', resolve))
    const status = () => page.getByRole('status').first().textContent()
    await expect.poll(status).toBe('Console restarting…')
    expect(await page.locator('.offline').textContent()).toContain('The console is restarting.')
    expect(await readScreen(page)).toMatchObject({ state: 'answering', index: 1 })
    expect(
      await page.getByRole('heading', { name: /session ended|Nothing to answer/ }).count(),
    ).toBe(0)

    const second = await startConsole(args)
    expect(second.url).toBe(first.url)
    await expect.poll(status, { timeout: 30_000 }).toBe('Connected')
    await page.getByRole('checkbox', { name: 'Load test' }).click()
    await page.getByRole('button', { name: 'Next', exact: true }).click()
    await page.getByLabel('Your answer').fill('After the restart')
    await page.getByLabel('Your answer').press('Enter')
    expect(await asked).toEqual({
      answers: [
        { id: 'region', selected: ['us-east-1'] },
        { id: 'checks', selected: ['Load test'] },
        { id: 'announce', selected: [], custom: 'After the restart' },
      ],
    })
    await page.locator('.stage .sent').waitFor()
  }, 120_000)
})
