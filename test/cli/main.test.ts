import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }

/** The askseam command from source, as a real child process with no terminal. */
function askseam(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
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
}

describe.concurrent('the askseam command line', { timeout: 90_000 }, () => {
  it.each([['--version'], ['-v']])('%s prints the package version alone', async (flag) => {
    expect(await askseam([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
  })

  it('--help speaks to someone who installed the package', async () => {
    const { code, stdout } = await askseam(['--help'])
    expect(code).toBe(0)
    expect(stdout).toContain('askseam --help | --version')
    expect(stdout).toContain('npm install @modelcontextprotocol/sdk')
    expect(stdout).not.toMatch(/npm start|source checkout/)
  })

  it.each([
    [['--frobnicate'], 'askseam: unknown option --frobnicate'],
    [['-x'], 'askseam: unknown option -x'],
    [['demo', '--timeout'], 'askseam: option --timeout needs a value'],
    [['--web=yes'], 'askseam: option --web takes no value'],
    [['deploy'], 'askseam: unknown command "deploy": use demo, console or mcp'],
  ])('%j gets one line and the usage, exit 2', async (args, line) => {
    const { code, stdout, stderr } = await askseam(args)
    expect(code).toBe(2)
    expect(stdout).toBe('')
    const [first, blank, ...usage] = stderr.split('\n')
    expect(first).toBe(line)
    expect(blank).toBe('')
    expect(usage.join('\n')).toMatch(/^Usage:\n {2}askseam \[demo\]/)
  })
})
