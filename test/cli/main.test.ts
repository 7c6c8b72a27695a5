import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }

/** The askseam command from source, as a real child process with no terminal. */
function askseam(args: string[], env: Record<string, string | undefined> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
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
    [['deploy'], 'askseam: unknown command "deploy": use demo, console, mcp, notify or history'],
  ])('%j gets one line and the usage, exit 2', async (args, line) => {
    const { code, stdout, stderr } = await askseam(args)
    expect(code).toBe(2)
    expect(stdout).toBe('')
    const [first, blank, ...usage] = stderr.split('\n')
    expect(first).toBe(line)
    expect(blank).toBe('')
    expect(usage.join('\n')).toMatch(/^Usage:\n {2}askseam \[demo\]/)
  })

  it.each([
    ['demo', /^Usage: askseam \[demo\][\s\S]*resumes where it stopped[\s\S]*--fresh/],
    ['console', /^Usage: askseam console --store FILE[\s\S]*ends no ask[\s\S]*--token T/],
    ['mcp', /^Usage: askseam mcp [\s\S]*elicitation[\s\S]*@modelcontextprotocol\/sdk/],
  ])("askseam %s --help prints that command's own help", async (command, help) => {
    const { code, stdout, stderr } = await askseam([command, '--help'])
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    expect(stdout).toMatch(help)
    expect(stdout).not.toContain('Commands:')
  })

  it.each<[string[], string]>([
    [['--timeout', '-1'], 'askseam: --timeout takes a number of seconds greater than 0, not "-1"'],
    [
      ['mcp', '--timeout', '-0.5'],
      'askseam: --timeout takes a number of seconds greater than 0, not "-0.5"',
    ],
    ...['-1', '-0.5', 'ten', '', '1e9', 'Infinity'].map((value): [string[], string] => [
      ['mcp', '--keepalive', value],
      `askseam: --keepalive takes a number of seconds from 0 (no keepalive) to 2147483, not "${value}"`,
    ]),
    [
      ['console', '--port', '-80'],
      'askseam: --port takes a port number from 1 to 65535, not "-80"',
    ],
  ])('%j says what the number must be, exit 2', async (args, line) => {
    expect(await askseam(args)).toEqual({ code: 2, stdout: '', stderr: `${line}\n` })
  })

  it('an option whose value is left out before another option says it needs a value', async () => {
    const { code, stderr } = await askseam(['console', '--port', '--token', 'x'])
    expect(code).toBe(2)
    expect(stderr.split('\n')[0]).toMatch(/^askseam: option --port needs a value/)
  })

  it.each([
    [{ npm_lifecycle_event: 'start', npm_package_name: 'askseam' }, '`npm start -- --web`'],
    [{ npm_lifecycle_event: undefined, npm_package_name: undefined }, '`askseam --web`'],
  ])(
    'without a terminal, names the web demo as the reader starts it (%j)',
    async (env, command) => {
      const { code, stdout, stderr } = await askseam([], env)
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' })
      expect(stderr).toMatch(/^askseam: askseam demo asks its questions in an interactive terminal/)
      expect(stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(stderr.trimEnd().endsWith(command)).toBe(true)
    },
  )

  it('a console whose store cannot be opened says so in one line and exits 1', async () => {
    const { code, stdout, stderr } = await askseam(['console', '--store', '/proc/nope/a.sqlite'])
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' })
    expect(stderr).toMatch(
      /^askseam: cannot open the console's store, \/proc\/nope\/a\.sqlite: [^\n]+\n$/,
    )
  })

  it('so does a console whose Postgres server cannot be reached', async () => {
    const url = 'postgres://nobody@127.0.0.1:1/none'
    const { code, stdout, stderr } = await askseam(['console', '--postgres', url])
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' })
    expect(stderr).toMatch(
      /^askseam: cannot open the console's store, the Postgres database: [^\n]*ECONNREFUSED[^\n]*\n$/,
    )
  })
})
