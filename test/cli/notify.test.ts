/**
 * `askseam notify`'s flags: each mistake is one line and exit code 2, before
 * any store is read.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { notifierOptions } from '../../src/cli/flags.js'
import { askseam } from '../support/cli.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'askseam-notify-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const store = ['--store', join(dir, 'asks.db')]
const secret = `whsec_${Buffer.from('a secret of twenty-four!!').toString('base64')}`

/** A usage mistake: exit code 2, nothing on stdout, and one line on stderr that matches `line`. */
function expectUsageLine(
  { code, stdout, stderr }: { code: number | null; stdout: string; stderr: string },
  line: RegExp,
): void {
  expect(code).toBe(2)
  expect(stdout).toBe('')
  expect(stderr.split('\n')).toHaveLength(2)
  expect(stderr.trimEnd()).toMatch(line)
}

describe.concurrent('askseam notify', { timeout: 90_000 }, () => {
  it.each([
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', 'hunter2'],
      /^askseam: --secret: .*whsec_/,
    ],
    [
      ['--webhook', 'ftp://example.com/', '--secret', secret],
      /^askseam: --webhook: .*http or https/,
    ],
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, '--console-url', 'nope'],
      /^askseam: --console-url: /,
    ],
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, '--remind-every', '-5'],
      /^askseam: --remind-every takes a number of seconds greater than 0, not "-5"$/,
    ],
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, '--escalate-after', 'soon'],
      /^askseam: --escalate-after takes a number of seconds from 0 \(at once\) to 2147483, not "soon"$/,
    ],
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, '--max-reminders', '2.5'],
      /^askseam: --max-reminders takes a whole number, 0 or more, not "2.5"$/,
    ],
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, '--max-in-flight', '0'],
      /^askseam: --max-in-flight takes a whole number, 1 or more, not "0"$/,
    ],
    [['--secret', secret], /^askseam: askseam notify needs --webhook URL$/],
    // Number() alone reads these as 16 and 3.
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, '--notify-after', '0x10'],
      /^askseam: --notify-after takes a number of seconds from 0 \(at once\) to 2147483, not "0x10"$/,
    ],
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, '--max-reminders', '0x3'],
      /^askseam: --max-reminders takes a whole number, 0 or more, not "0x3"$/,
    ],
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, '--max-in-flight', ' 4'],
      /^askseam: --max-in-flight takes a whole number, 1 or more, not " 4"$/,
    ],
    [
      ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, '--remind-every', '1e3'],
      /^askseam: --remind-every takes a number of seconds greater than 0, not "1e3"$/,
    ],
  ])('refuses %j in one line, exit code 2', async (flags, line) => {
    expectUsageLine(await askseam(['notify', ...store, ...flags]), line)
  })

  it('refuses to run without a store in one line, exit code 2', async () => {
    const { code, stdout, stderr } = await askseam([
      'notify',
      '--webhook',
      'http://127.0.0.1:9/hook',
      '--secret',
      secret,
    ])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      'askseam: askseam notify serves a shared store: give --store FILE or --postgres URL\n',
    )
  })

  // fetch refuses every post to such a URL: it was accepted, then retried for a day unsent.
  it.each([
    [
      '--webhook',
      'http://hook:pw-s3cret@127.0.0.1:9/hook',
      /^askseam: --webhook: webhook\.url must not carry a user name or password .*path or query$/,
    ],
    [
      '--webhook',
      'ftp://hook:pw-s3cret@127.0.0.1:9/hook',
      /^askseam: --webhook: webhook\.url must be an http or https URL, not "ftp:\/\/…@127\.0\.0\.1:9\/hook"$/,
    ],
    [
      '--console-url',
      'http://me:pw-s3cret@127.0.0.1:4000/',
      /^askseam: --console-url: consoleUrl must not carry a user name or password .*\?token=/,
    ],
  ])(
    'refuses %s with credentials in one line, exit code 2, never printing them',
    async (flag, url, line) => {
      const flags =
        flag === '--webhook'
          ? ['--webhook', url, '--secret', secret]
          : ['--webhook', 'http://127.0.0.1:9/hook', '--secret', secret, flag, url]
      const result = await askseam(['notify', ...store, ...flags])
      expectUsageLine(result, line)
      expect(result.stderr).not.toContain('s3cret')
    },
  )

  it('says in one line, exit code 1, that its store cannot be opened', async () => {
    const { code, stdout, stderr } = await askseam([
      'notify',
      '--store',
      '/proc/nope/a.sqlite',
      '--webhook',
      'http://127.0.0.1:9/hook',
      '--secret',
      secret,
    ])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toMatch(
      /^askseam: cannot open the notify's store, \/proc\/nope\/a\.sqlite: [^\n]+\n$/,
    )
  })

  it('runs until SIGTERM, with no ask pending, then stops cleanly', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'notify',
        '--store',
        join(dir, 'running.db'),
        '--webhook',
        // A chat's incoming webhook: the path and query are its secret.
        'http://127.0.0.1:9/services/T0/s3cret?token=s3cret',
        '--secret',
        secret,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let stdout = ''
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString()
        if (stdout.includes('askseam notify ·')) resolve()
      }),
    )
    // A process that ended by itself (nothing pending held it up) would never say it stopped.
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stdout).toContain("askseam notify · posting the store's asks to http://127.0.0.1:9/…\n")
    expect(stdout).not.toContain('s3cret')
    expect(stdout).toContain('askseam notify stopped')
  })

  it('passes each flag on to the notifier, in its unit', () => {
    expect(
      notifierOptions({
        webhook: 'http://127.0.0.1:9/hook',
        secret,
        'remind-every': '90',
        'max-in-flight': '4',
      }),
    ).toEqual({
      webhook: { url: 'http://127.0.0.1:9/hook', secret },
      remindEveryMs: 90_000,
      maxInFlight: 4,
    })
  })

  it('--help names every flag', async () => {
    const { code, stdout } = await askseam(['notify', '--help'])
    expect(code).toBe(0)
    for (const flag of [
      '--webhook',
      '--secret',
      '--console-url',
      '--notify-after',
      '--remind-every',
      '--max-reminders',
      '--escalate-after',
      '--max-in-flight',
    ]) {
      expect(stdout).toContain(flag)
    }
  })
})
