import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

/** One JSON line a child printed. */
export type ChildEvent = { event: string } & Record<string, unknown>

/** A child process speaking JSON lines on stdin and stdout. */
export interface ScriptProcess {
  readonly process: ChildProcess
  readonly events: readonly ChildEvent[]
  /** The first event (from the start) named `event`; waits for it if needed. */
  waitFor(event: string, timeoutMs?: number): Promise<ChildEvent>
  send(message: unknown): void
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>
  readonly exited: Promise<number | null>
}

const running = new Set<ScriptProcess>()

/** Starts `test/adapters/restart/<script>.ts` with tsx. */
export function startScript(script: string, args: readonly string[]): ScriptProcess {
  const file = fileURLToPath(new URL(`./${script}.ts`, import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  )
  const events: ChildEvent[] = []
  const waiters: Array<() => void> = []
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return
    events.push(JSON.parse(line) as ChildEvent)
    for (const wake of waiters.splice(0)) wake()
  })
  const handle: ScriptProcess = {
    process: child,
    events,
    exited,
    waitFor(event, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`${script} never printed ${event}; got ${JSON.stringify(events)}`)),
          timeoutMs,
        )
        const check = () => {
          const found = events.find((candidate) => candidate.event === event)
          if (found !== undefined) {
            clearTimeout(timer)
            resolve(found)
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer)
            reject(
              new Error(`${script} exited before printing ${event}; got ${JSON.stringify(events)}`),
            )
          } else {
            waiters.push(check)
          }
        }
        void exited.then(() => waiters.push(check) && check())
        check()
      })
    },
    send(message) {
      child.stdin!.write(`${JSON.stringify(message)}\n`)
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
      running.delete(handle)
    },
  }
  running.add(handle)
  return handle
}

/** Kills every script still running (for afterEach). */
export async function killScripts(): Promise<void> {
  await Promise.all([...running].map((script) => script.kill()))
}

/** A fresh directory for one test's SQLite files; `remove` deletes it. */
export function scratchDirectory(): {
  directory: string
  file(name: string): string
  remove(): void
} {
  const directory = mkdtempSync(path.join(tmpdir(), 'askseam-frameworks-'))
  return {
    directory,
    file: (name) => path.join(directory, name),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  }
}
