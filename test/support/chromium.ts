import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { chromium } from 'playwright-core'
import type { BrowserContext } from 'playwright-core'
import { beforeAll, beforeEach } from 'vitest'

/** Where Debian's `chromium` is on the PATH (as `command -v chromium` finds it), or undefined. */
export function findChromium(): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue
    const candidate = join(directory, 'chromium')
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // Not in this directory; the next one may have it.
    }
  }
  return undefined
}

const MISSING = 'chromium is not on the PATH (Debian: apt-get install chromium)'
// The same reading of CI as test/support/postgres.ts: set, and neither empty nor 'false'.
const underCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false'

/**
 * How to launch Debian's chromium headless: its path and the flags it needs in
 * a container (no sandbox, no GPU). Throws when it is not installed.
 */
export function debianChromium(): { executablePath: string; args: string[] } {
  const executablePath = findChromium()
  if (executablePath === undefined) throw new Error(MISSING)
  return {
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  }
}

/** A browser context on its own new profile, and how to close both. */
export interface ChromiumProfile {
  readonly context: BrowserContext
  close(): Promise<void>
}

/**
 * Debian's chromium, headless, with a new empty profile. `bypassCSP` lets a
 * test inject a script tag (axe-core) into a page whose policy would refuse it.
 */
export async function launchChromium(
  options: { bypassCSP?: boolean } = {},
): Promise<ChromiumProfile> {
  const profile = mkdtempSync(join(tmpdir(), 'askseam-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    ...debianChromium(),
    headless: true,
    viewport: { width: 1200, height: 860 },
    bypassCSP: options.bypassCSP === true,
  })
  context.setDefaultTimeout(10_000)
  return {
    context,
    async close() {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

/**
 * Declares that the calling test file needs chromium, and says whether it is
 * installed. When it is not, every test of the file is skipped (saying why,
 * once), except under CI (`CI=true`), where every test fails: a CI without
 * the browser must not pass its browser tests by skipping them.
 */
export function requireChromium(): boolean {
  if (findChromium() !== undefined) return true
  if (underCi) {
    beforeAll(() => {
      throw new Error(`CI is set but ${MISSING}: the browser tests cannot be skipped under CI`)
    })
  } else {
    console.warn(`[askseam] browser tests skipped: ${MISSING}`)
    beforeEach((context) => {
      context.skip(MISSING)
    })
  }
  return false
}
