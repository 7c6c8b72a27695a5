/**
 * `npm start` end to end in a real pseudo-terminal: the scripted agent asks,
 * keystrokes answer, and the output shows exactly what the model receives.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { Keys, startPty } from '../support/pty-screen.js'
import type { PtySession } from '../support/pty-screen.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const sessions: PtySession[] = []

function npmStart(...args: string[]): PtySession {
  const session = startPty({
    command: 'npm',
    args: ['start', '--silent', ...(args.length > 0 ? ['--', ...args] : [])],
    cwd: ROOT,
    columns: 110,
    rows: 40,
    env: { NO_COLOR: undefined, FORCE_COLOR: undefined },
  })
  sessions.push(session)
  return session
}

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill()
})

describe('npm start (askseam demo) in a pty', () => {
  it(
    'answered by keystrokes, prints the exact model-facing results and exits 0',
    { timeout: 60_000 },
    async () => {
      const session = npmStart()
      await session.waitForScreen('Target · 1 of 3', 40_000)
      session.type(Keys.enter)
      await session.waitForScreen('Safety · 2 of 3')
      session.type(`13${Keys.enter}`)
      await session.waitForScreen('Release notes · 3 of 3')
      session.type(`Faster checkout${Keys.enter}`)
      await session.waitForScreen('Review your answers')
      session.type(Keys.enter)
      // The whole frame, question and plan, before it is read.
      await session.waitForScreen(
        (screen) =>
          screen.includes('Approve this deployment plan?') && screen.includes('esc dismiss'),
      )
      expect(session.screen()).toContain('Run the gates: Smoke tests, Load test')
      session.type('1')
      await session.waitForOutput('What the model received')
      expect((await session.exited).exitCode).toBe(0)
      // A result wider than the terminal is wrapped between values; unwrapped, it is exact.
      const output = session.transcript().replace(/\n {4}/g, '')
      const first =
        '{"answers":[{"id":"region","selected":["eu-west-1 (Recommended)"]},{"id":"checks","selected":["Smoke tests","Load test"]},{"id":"announce","selected":[],"custom":"Faster checkout"}]}'
      const second = '{"answers":[{"id":"plan","selected":["Approve"]}]}'
      // Each result appears twice: as the call returns, and in the closing recap.
      expect(output.split(first).length - 1).toBe(2)
      expect(output.split(second).length - 1).toBe(2)
      expect(output).toContain('Approved: the agent would deploy now')
      expect(output).not.toMatch(/\bat .+\.ts:\d+/)
    },
  )

  it('Ctrl-C mid-batch prints the cancelled result and exits 0', { timeout: 60_000 }, async () => {
    const session = npmStart()
    await session.waitForScreen('Target · 1 of 3', 40_000)
    session.type(Keys.down)
    await session.waitForScreen('❯ 2. us-east-1')
    session.type(Keys.ctrlC)
    await session.waitForOutput('What the model received')
    expect((await session.exited).exitCode).toBe(0)
    const output = session.transcript()
    expect(output).toContain('Questions dismissed')
    expect(output).toMatch(/↳ the model receives\n\s+ASK_CANCELLED: /)
    expect(output).not.toContain('Approve this deployment plan?')
    expect(output).not.toMatch(/\bat .+\.ts:\d+/)
  })

  it(
    '--timeout gives each ask a deadline; the model gets ASK_TIMEOUT',
    { timeout: 60_000 },
    async () => {
      const session = npmStart('--timeout', '1')
      await session.waitForScreen('Target · 1 of 3', 40_000)
      await session.waitForOutput('What the model received', 30_000)
      expect((await session.exited).exitCode).toBe(0)
      const output = session.transcript()
      expect(output).toContain('Time ran out after 1 second')
      expect(output).toMatch(/↳ the model receives\n\s+ASK_TIMEOUT: /)
    },
  )
})

describe('the demo resumes from its store', () => {
  it(
    'killed with SIGKILL at the plan review, run again: the answered batch is not asked again, the plan comes back with its askId',
    { timeout: 120_000 },
    async () => {
      const store = path.join(tmpdir(), `askseam-demo-resume-${process.pid}-${Date.now()}.sqlite`)
      const demo = () => {
        // The demo process itself, not npm, so SIGKILL reaches the process that holds the ask.
        const session = startPty({
          command: process.execPath,
          args: ['--import', 'tsx', 'src/cli/main.ts', 'demo'],
          cwd: ROOT,
          columns: 110,
          rows: 40,
          env: { NO_COLOR: undefined, FORCE_COLOR: undefined, ASKSEAM_DEMO_STORE: store },
        })
        sessions.push(session)
        return session
      }
      const askIdsOfPlan = async () => {
        const opened = createSqliteStore({ path: store })
        try {
          return (await opened.pending()).map((record) => record.askId)
        } finally {
          await opened.close()
        }
      }
      const first = demo()
      await first.waitForScreen('Target · 1 of 3', 40_000)
      first.type(Keys.enter)
      await first.waitForScreen('Safety · 2 of 3')
      first.type(`1${Keys.enter}`)
      await first.waitForScreen('Release notes · 3 of 3')
      first.type(`Kept${Keys.enter}`)
      await first.waitForScreen('Review your answers')
      first.type(Keys.enter)
      await first.waitForScreen('Approve this deployment plan?')
      const before = await askIdsOfPlan()
      expect(before).toHaveLength(1)
      first.kill('SIGKILL')
      await first.exited

      const second = demo()
      await second.waitForScreen('Approve this deployment plan?', 40_000)
      expect(await askIdsOfPlan()).toEqual(before)
      second.type('1')
      await second.waitForOutput('What the model received')
      expect((await second.exited).exitCode).toBe(0)
      const output = second.transcript()
      expect(output).not.toContain('Target · 1 of 3')
      // The open question waits for the script: its prompt comes after the replayed steps.
      expect(output.indexOf('Wrote the plan for')).toBeGreaterThan(-1)
      expect(output.indexOf('Approve this deployment plan?')).toBeGreaterThan(
        output.indexOf('Wrote the plan for'),
      )
      expect(output).toContain('"custom":"Kept"')
      // The batch answered before the kill is summed up as the terminal sums up an answer.
      expect(output).toContain('answered before the demo stopped')
      expect(output).toContain('Release notes · “Kept”')
      expect(output.indexOf('answered before the demo stopped')).toBeLessThan(
        output.indexOf('Approve this deployment plan?'),
      )
      expect(output).toContain('Approved: the agent would deploy now')
      // A demo run to its end forgets its asks: the next one starts afresh.
      expect(existsSync(store)).toBe(false)
    },
  )
})

describe('askseam without a terminal', () => {
  it(
    'exits non-zero with a one-line explanation when stdin is not a TTY',
    { timeout: 60_000 },
    async () => {
      const child = spawn('npm', ['start', '--silent'], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      })
      child.stdin.end()
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      expect(code).not.toBe(0)
      const lines = stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^askseam: .*interactive terminal.*`npm start -- --web`$/)
      expect(stdout).toBe('')
    },
  )

  it(
    '--help prints usage and exits 0; a bad option exits 2 with one line',
    { timeout: 60_000 },
    async () => {
      const run = (args: string[]) =>
        new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
            cwd: ROOT,
            stdio: ['ignore', 'pipe', 'pipe'],
          })
          let stdout = ''
          let stderr = ''
          child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
          child.on('close', (code) => resolve({ code, stdout, stderr }))
        })
      const help = await run(['--help'])
      expect(help.code).toBe(0)
      expect(help.stdout).toContain('askseam [demo] [--timeout SECONDS] [--web]')
      const bad = await run(['demo', '--timeout', 'soon'])
      expect(bad.code).toBe(2)
      expect(bad.stderr.trim().split('\n')).toEqual([
        'askseam: --timeout takes a number of seconds greater than 0, not "soon"',
      ])
    },
  )
})
