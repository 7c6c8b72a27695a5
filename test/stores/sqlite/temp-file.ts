import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A fresh directory for one test's database files, and its removal. */
export function tempDirectory(): {
  dir: string
  file: (name?: string) => string
  remove: () => void
} {
  const dir = mkdtempSync(join(tmpdir(), 'askseam-sqlite-'))
  return {
    dir,
    file: (name = 'asks.db') => join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
