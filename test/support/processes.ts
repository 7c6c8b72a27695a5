import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'

/** A child process running a TypeScript script, read line by line. */
export interface Child {
  process: ChildProcess
  /** Every line it printed so far. */
  lines: string[]
  /** The next line (after those already returned) that matches. */
  next(predicate?: (line: string) => boolean): Promise<string>
  /** The first line printed, before or after this call, that matches: lines whose order does not matter. */
  line(predicate: (line: string) => boolean): Promise<string>
  /** Writes one line to its stdin. */
  send(line: string): void
  kill(): Promise<void>
  exited: Promise<number | null>
}

/** Starts `node --import tsx script ...args`; `track` gets a cleanup that kills it. */
export function startChild(
  script: string,
  args: string[],
  track: (cleanup: () => Promise<void>) => void,
): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  )
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  track(kill)
  const lines: string[] = []
  const waiting: Array<{ predicate: (line: string) => boolean; resolve: (line: string) => void }> =
    []
  let read = 0
  const listeners = new Set<(line: string) => void>()
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line)
    for (const listener of [...listeners]) listener(line)
    for (const waiter of [...waiting]) {
      if (waiter.predicate(line)) {
        waiting.splice(waiting.indexOf(waiter), 1)
        read = lines.length
        waiter.resolve(line)
      }
    }
  })
  const line = (predicate: (line: string) => boolean): Promise<string> => {
    const found = lines.find(predicate)
    if (found !== undefined) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const listener = (printed: string) => {
        if (!predicate(printed)) return
        listeners.delete(listener)
        resolve(printed)
      }
      listeners.add(listener)
      void exited.then(() => reject(new Error(`${script} exited before printing what was awaited`)))
    })
  }
  return {
    line,
    process: child,
    lines,
    exited,
    kill,
    send: (line) => child.stdin?.write(`${line}\n`),
    next(predicate = () => true) {
      const index = lines.findIndex((line, i) => i >= read && predicate(line))
      if (index >= 0) {
        read = index + 1
        return Promise.resolve(lines[index] as string)
      }
      return new Promise((resolve, reject) => {
        waiting.push({ predicate, resolve })
        void exited.then(() =>
          reject(new Error(`${script} exited before printing what was awaited`)),
        )
      })
    },
  }
}
