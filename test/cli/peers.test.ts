/**
 * The command in a project that installed only some of askseam's optional
 * peers, as `--help` and the README tell a user to: the sources copied into a
 * folder whose node_modules holds xstate and the peers named, nothing else.
 * A missing peer is one line; the web demo does not load the terminal's peer.
 */
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const TSX = path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')
const folders: string[] = []
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

/** A project with askseam's sources and only `peers` (and xstate) installed. */
function projectWith(peers: readonly string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'askseam-peers-'))
  folders.push(dir)
  cpSync(path.join(ROOT, 'src'), path.join(dir, 'src'), { recursive: true })
  cpSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'))
  mkdirSync(path.join(dir, 'node_modules'))
  for (const name of ['xstate', ...peers]) {
    const target = path.join(dir, 'node_modules', name)
    mkdirSync(path.dirname(target), { recursive: true })
    symlinkSync(path.join(ROOT, 'node_modules', name), target)
  }
  return dir
}

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** `askseam ...args` in `dir`; `until` ends it (SIGTERM) once its output matches. */
function askseam(dir: string, args: string[], until?: RegExp): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', TSX, 'src/cli/main.ts', ...args], {
      cwd: dir,
      // The demo keeps its asks in a file of its own, in this project's folder.
      env: { ...process.env, TMPDIR: dir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      if (until?.test(stdout)) child.kill('SIGTERM')
    })
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('the command with some peers missing', { timeout: 90_000 }, () => {
  it('askseam --web runs with ws and zod alone: it does not load the terminal peer marked', async () => {
    const dir = projectWith(['ws', 'zod'])
    const { stdout, stderr } = await askseam(dir, ['--web'], /http:\/\/127\.0\.0\.1:\d+\/\S+/)
    expect(stderr).toBe('')
    expect(stdout).toMatch(/Web console · open this page to answer:\n http:\/\/127\.0\.0\.1/)
  })

  it.each([
    [['ws', 'zod'], [], 'askseam/terminal needs the "marked" package: npm install marked'],
    [['marked', 'zod'], ['--web'], 'askseam/web needs the "ws" package: npm install ws'],
    [
      ['marked', 'ws', 'zod'],
      ['mcp'],
      'askseam/mcp needs the "@modelcontextprotocol/sdk" package: npm install @modelcontextprotocol/sdk',
    ],
    [
      ['@modelcontextprotocol/sdk'],
      ['mcp', '--http', '8123'],
      'askseam mcp needs the "@modelcontextprotocol/server" package: npm install @modelcontextprotocol/server',
    ],
  ])(
    'with %j installed, askseam %j names the missing peer in one line: no stack, no cause',
    async (peers, args, line) => {
      const { code, stdout, stderr } = await askseam(projectWith(peers), args)
      expect({ code, stdout, stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr: `askseam: ${line}\n`,
      })
    },
  )
})
