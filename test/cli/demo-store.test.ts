/**
 * Where `npm start` keeps its asks: one file per user and per kind of demo,
 * so a web demo never takes over the terminal demo's open question, and a
 * demo run again after it was killed says that it resumed.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { demoKind, demoStorePath } from '../../src/cli/stores.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const folders: string[] = []
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})
afterEach(() => {
  vi.unstubAllEnvs()
})

describe('the demo store path', () => {
  it('is one file per kind of demo, in a folder of the user', () => {
    vi.stubEnv('ASKSEAM_DEMO_STORE', '')
    const kinds = [
      demoKind({ web: false }),
      demoKind({ web: true }),
      demoKind({ web: false, framework: 'ai-sdk' }),
      demoKind({ web: true, framework: 'langgraph' }),
    ]
    expect(kinds).toEqual(['terminal', 'web', 'terminal-ai-sdk', 'web-langgraph'])
    const files = kinds.map(demoStorePath)
    expect(new Set(files).size).toBe(files.length)
    for (const file of files) {
      expect(path.dirname(file)).toBe(path.join(tmpdir(), `askseam-demo-${userInfo().username}`))
    }
  })

  it('is ASKSEAM_DEMO_STORE when that is set', () => {
    vi.stubEnv('ASKSEAM_DEMO_STORE', 'here/asks.sqlite')
    expect(demoStorePath('web')).toBe(path.resolve('here/asks.sqlite'))
  })
})

/** `askseam --web` with its temp folder in `home`, killed with SIGKILL once it shows its URL. */
function webDemoUntilUrl(home: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--web'], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: home, NO_COLOR: '1', ASKSEAM_DEMO_STORE: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      // The first ask is in the store once the agent says what it waits for.
      if (/Waiting for answers to 3 questions/.test(output)) child.kill('SIGKILL')
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.on('close', (_code, signal) =>
      signal === 'SIGKILL' ? resolve(output) : reject(new Error(`ended by itself: ${output}`)),
    )
  })
}

describe('the web demo killed and run again', () => {
  it(
    'keeps its asks apart from the terminal demo and says that it resumed',
    { timeout: 90_000 },
    async () => {
      const home = mkdtempSync(path.join(tmpdir(), 'askseam-demo-home-'))
      folders.push(home)
      const folder = path.join(home, `askseam-demo-${userInfo().username}`)

      const first = await webDemoUntilUrl(home)
      expect(first).toContain(`Asks kept in ${path.join(folder, 'web.sqlite')}`)
      expect(first).not.toContain('Resumed')
      expect(existsSync(path.join(folder, 'web.sqlite'))).toBe(true)
      expect(existsSync(path.join(folder, 'terminal.sqlite'))).toBe(false)

      const second = await webDemoUntilUrl(home)
      expect(second).toContain(
        `Resumed the demo that stopped before its end (asks kept in ${path.join(folder, 'web.sqlite')})`,
      )
    },
  )
})
