/**
 * The deadline passing while the user types, in a real pty: the prompt goes
 * with a clear line and the typed text kept on screen, and the terminal is
 * given back (line mode, bracketed paste off, cursor shown) before the host
 * reads stdin again, so the keys typed afterwards reach that reader as a
 * plain line, with nothing of the answer and no escape sequence in it.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { startPty } from '../support/pty-screen.js'
import type { PtySession } from '../support/pty-screen.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const CHILD = fileURLToPath(new URL('./terminal-deadline.child.ts', import.meta.url))
const sessions: PtySession[] = []

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill()
})

describe('a deadline passing mid-typing', () => {
  it(
    'keeps the typed text on screen, restores the terminal, and leaks nothing to the next reader',
    { timeout: 60_000 },
    async () => {
      const session = startPty({
        command: process.execPath,
        args: ['--import', 'tsx', CHILD],
        cwd: ROOT,
        env: { ASKSEAM_DEADLINE_MS: '4000', NO_COLOR: '1', FORCE_COLOR: undefined },
      })
      sessions.push(session)
      await session.waitForScreen('Answer:', 40_000)
      session.type('checkout-serv')
      await session.waitForScreen('Answer: checkout-serv')
      await session.waitForOutput('RESULT ASK_TIMEOUT', 15_000)
      await session.waitForOutput('RAW false')
      const screen = session.screen()
      expect(screen).toContain('Time ran out after 4 seconds')
      expect(screen).toContain('You had typed (not sent): “checkout-serv”')
      // The last word on the modes the prompt set is "off".
      const raw = session.raw()
      expect(raw.lastIndexOf('\u001b[?2004l')).toBeGreaterThan(raw.lastIndexOf('\u001b[?2004h'))
      expect(raw.lastIndexOf('\u001b[?25h')).toBeGreaterThan(raw.lastIndexOf('\u001b[?25l'))
      // Keys typed now belong to the next reader: a plain line, echoed by the terminal itself.
      session.type('next\r')
      await session.waitForOutput(/LINE ".*"/)
      expect(session.transcript()).toContain('LINE "next"')
      expect((await session.exited).exitCode).toBe(0)
    },
  )
})
