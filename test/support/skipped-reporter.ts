/**
 * The last lines of a run that could not run everything: which tests did not
 * run, why, and how to run them (Postgres without a server, the browser tests
 * without chromium). Without it only the log says so, scrolled away among a
 * thousand passing tests.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'
import { MISSING_POSTGRES } from './postgres-global-setup.js'

const usesPostgres = (module: TestModule) =>
  /support\/(postgres|dialects)\.js/.test(readFileSync(module.moduleId, 'utf8'))

function postgresLines(testModules: ReadonlyArray<TestModule>): string[] {
  if (process.env.ASKSEAM_POSTGRES_URL) return []
  const skipped = testModules
    .filter(usesPostgres)
    .map((module) => ({
      file: path.relative(process.cwd(), module.moduleId),
      count: [...module.children.allTests('skipped')].length,
    }))
    .filter(({ count }) => count > 0)
  if (skipped.length === 0) return []
  const total = skipped.reduce((sum, { count }) => sum + count, 0)
  const why =
    process.env[MISSING_POSTGRES] ?? 'ASKSEAM_POSTGRES_URL is not set and no server was started'
  return [
    `Not run: ${total} Postgres tests, because ${why}.`,
    ...skipped.map(({ file, count }) => `  ${file} (${count})`),
    'Install the server and npm test starts a throwaway one for the run: apt-get install -y postgresql',
    '(Debian, Ubuntu; brew install postgresql on macOS), or set ASKSEAM_POSTGRES_URL to a database of yours.',
  ]
}

/** Tests that skipped themselves saying why (`context.skip(note)`), by reason. */
function notedLines(testModules: ReadonlyArray<TestModule>): string[] {
  const byNote = new Map<string, Set<string>>()
  for (const module of testModules) {
    for (const test of module.children.allTests('skipped')) {
      const result = test.result()
      const note = result.state === 'skipped' ? result.note : undefined
      if (note === undefined) continue
      const files = byNote.get(note) ?? new Set<string>()
      files.add(path.relative(process.cwd(), module.moduleId))
      byNote.set(note, files)
    }
  }
  return [...byNote].map(([note, files]) => `Skipped, ${note}: ${[...files].join(', ')}`)
}

export default class SkippedReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines = [...notedLines(testModules), ...postgresLines(testModules)]
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`)
  }
}
