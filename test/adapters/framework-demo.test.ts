/**
 * `npm start -- --framework ai-sdk` in a real pseudo-terminal: the scripted
 * agent's asks run inside a real `generateText` loop, keystrokes answer, and
 * the output shows what the scripted model was handed back.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { Keys, startPty } from '../support/pty-screen.js'
import type { PtySession } from '../support/pty-screen.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const sessions: PtySession[] = []

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill()
})

describe('askseam demo --framework', () => {
  it(
    'ai-sdk: answered by keystrokes, the model receives the answers through the AI SDK loop',
    { timeout: 90_000 },
    async () => {
      const session = startPty({
        command: 'npm',
        args: ['start', '--silent', '--', '--framework', 'ai-sdk'],
        cwd: ROOT,
        columns: 110,
        rows: 40,
        env: { NO_COLOR: undefined, FORCE_COLOR: undefined },
      })
      sessions.push(session)
      await session.waitForScreen('Target · 1 of 3', 60_000)
      expect(session.transcript()).toContain('Framework: the AI SDK')
      session.type(Keys.enter)
      await session.waitForScreen('Safety · 2 of 3')
      session.type(`2${Keys.enter}`)
      await session.waitForScreen('Release notes · 3 of 3')
      session.type(Keys.tab)
      await session.waitForScreen('Review your answers')
      session.type(Keys.enter)
      await session.waitForScreen('Approve this deployment plan?')
      session.type(`2${Keys.enter}`)
      await session.waitForOutput('What the model received')
      expect((await session.exited).exitCode).toBe(0)
      // A result wider than the terminal is wrapped between values; unwrapped, it is exact.
      const output = session.transcript().replace(/\n {4}/g, '')
      const first =
        '{"answers":[{"id":"region","selected":["eu-west-1 (Recommended)"]},{"id":"checks","selected":["Database migration dry run"]},{"id":"announce","selected":[]}]}'
      expect(output.split(first).length - 1).toBe(2)
      expect(output).toContain('{"answers":[{"id":"plan","selected":["Revise"]}]}')
      expect(output).toContain('Sent back: the agent revises the plan')
    },
  )

  it('refuses a framework it cannot run with one line and exit code 2', async () => {
    const outcome = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'demo', '--framework', 'crewai'],
      { cwd: ROOT },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    )
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toBe(
      'askseam: --framework takes one of ai-sdk, openai-agents, langgraph, not "crewai" (see askseam --help)\n',
    )
  })
})
