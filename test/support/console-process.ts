import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

/*
 * `askseam console` as a user runs it: a child process of its own, on a
 * loopback port the test chose, stopped (SIGKILL) by the test's cleanup.
 */

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))

/** A loopback port free when asked (another process may take it after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(),
      )
    })
  })
}

/**
 * A token to give the console as `--token T`: hex, since a base64url token
 * begins with "-" one time in 64, and the CLI reads that as an option.
 */
export const consoleToken = (): string => randomBytes(24).toString('hex')

/**
 * Starts `askseam console` with `args` and resolves once it printed its URL;
 * `cleanup` receives what kills it and waits for its exit.
 */
export async function startConsole(
  args: string[],
  cleanup: (stop: () => Promise<void>) => void,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'console', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  cleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await stopped
  })
  let output = ''
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /http:\/\/\S+/.exec(output)
      if (match !== null) resolve(match[0])
    })
    child.once('exit', () => reject(new Error(`askseam console exited: ${output}`)))
  })
  return { child, url }
}
