import { fileURLToPath } from 'node:url'
import { startChild } from './processes.js'
import type { Child } from './processes.js'

/*
 * Seams in processes of their own (test/support/seam-process.ts), on one
 * store: started by mode, read by the JSON events they print, and killed
 * once the test is done, last started first.
 */

const SEAM_PROCESS = fileURLToPath(new URL('./seam-process.ts', import.meta.url))

/** Whether `line` is the event `name` a seam process printed. */
export const isEvent = (name: string) => (line: string) => {
  try {
    return (JSON.parse(line) as { event?: string }).event === name
  } catch {
    return false
  }
}

/** The next event `name` the seam process printed, as data. */
export async function read(child: Child, name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await child.line(isEvent(name))) as Record<string, unknown>
}

/** Seam processes on the store at `location` (`dialect`: `sqlite` or `postgres`). */
export function seamProcesses(dialect: string, location: string) {
  const kills: Array<() => Promise<void>> = []
  return {
    /** Starts a seam process in `mode` (ask, answer, lock) with its options. */
    start(mode: string, options: object = {}): Child {
      return startChild(SEAM_PROCESS, [dialect, location, mode, JSON.stringify(options)], (kill) =>
        kills.push(kill),
      )
    },
    /** Kills every process started, last first. */
    async stopAll(): Promise<void> {
      for (const kill of kills.reverse()) await kill()
    },
  }
}
