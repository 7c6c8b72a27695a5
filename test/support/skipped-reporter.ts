/**
 * The last lines of a run without Postgres: which tests could not run, why,
 * and how to run them. Without it only the log says so, scrolled away among
 * a thousand passing tests.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'
import { MISSING_POSTGRES } from './postgres-global-setup.js'

export default class PostgresReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (process.env.ASKSEAM_POSTGRES_URL) return
    const skipped = testModules
      .filter(({ moduleId }) =>
        /support\/(postgres|dialects)\.js/.test(readFileSync(moduleId, 'utf8')),
      )
      .map((module) => ({
        file: path.relative(process.cwd(), module.moduleId),
        count: [...module.children.allTests('skipped')].length,
      }))
      .filter(({ count }) => count > 0)
    if (skipped.length === 0) return
    const total = skipped.reduce((sum, { count }) => sum + count, 0)
    const why =
      process.env[MISSING_POSTGRES] ?? 'ASKSEAM_POSTGRES_URL is not set and no server was started'
    const lines = [
      '',
      `Not run: ${total} Postgres tests, because ${why}.`,
      ...skipped.map(({ file, count }) => `  ${file} (${count})`),
      'Install the server and npm test starts a throwaway one for the run: apt-get install -y postgresql',
      '(Debian, Ubuntu; brew install postgresql on macOS), or set ASKSEAM_POSTGRES_URL to a database of yours.',
      '',
    ]
    process.stdout.write(lines.join('\n'))
  }
}
