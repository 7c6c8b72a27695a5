import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** `askseam ...args` from source, with stdin closed at once. */
function askseam(args: string[], env: Record<string, string | undefined> = {}) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('close', (code) => resolve({ code, stderr }))
  })
}

describe.concurrent('askseam mcp --http and --secret', { timeout: 90_000 }, () => {
  it.each([
    [
      ['mcp', '--http', 'eighty'],
      'askseam: --http takes a port number from 1 to 65535, not "eighty"',
    ],
    [['mcp', '--http', '0'], 'askseam: --http takes a port number from 1 to 65535, not "0"'],
    [
      ['mcp', '--http', '70000'],
      'askseam: --http takes a port number from 1 to 65535, not "70000"',
    ],
    [['mcp', '--http', '8.5'], 'askseam: --http takes a port number from 1 to 65535, not "8.5"'],
    [['mcp', '--http'], 'askseam: option --http needs a value'],
    [
      ['mcp', '--http', '8080', '--host', 'example.com'],
      'askseam: --host takes the IP address to listen on (0.0.0.0 for every interface), not "example.com"',
    ],
    [
      ['mcp', '--http', '8080', '--allow-host', 'https://lb.example:443'],
      'askseam: --allow-host takes a host name as clients send it, without scheme or port, not "https://lb.example:443"',
    ],
    [['mcp', '--host', '0.0.0.0'], 'askseam: --host and --allow-host go with --http PORT'],
    [
      ['mcp', '--http', '8080', '--secret', 'short'],
      'askseam: --secret takes at least 32 bytes (every instance serving the same clients gives the same one)',
    ],
  ])('%j says what is wrong in one line, exit 2', async (args, line) => {
    const { code, stderr } = await askseam(args)
    expect(code).toBe(2)
    expect(stderr.split('\n')[0]).toBe(line)
    expect(stderr).not.toMatch(/\n\s+at /)
  })

  it('reads the secret from ASKSEAM_MCP_SECRET, with the same rule', async () => {
    const { code, stderr } = await askseam(['mcp', '--http', '8080'], {
      ASKSEAM_MCP_SECRET: 'tiny',
    })
    expect(code).toBe(2)
    expect(stderr.split('\n')[0]).toMatch(/^askseam: --secret takes at least 32 bytes/)
  })
})
