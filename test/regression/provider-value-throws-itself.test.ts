import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIXTURE = fileURLToPath(new URL('./fixtures/hostile-provider.ts', import.meta.url))

describe('a provider value whose property reads throw that value (issue 10, item 1)', () => {
  it('never crashes the host: each ask settles coded, and the host exits on its own', () => {
    const run = spawnSync(
      process.execPath,
      ['--unhandled-rejections=strict', '--import', 'tsx', FIXTURE],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    )
    expect(run.signal).toBeNull()
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    const lines = run.stdout.trim().split('\n')
    expect(lines.at(-1)).toBe('DONE')
    const outcomes = lines.slice(0, -1)
    expect(outcomes).toHaveLength(8)
    for (const line of outcomes) {
      const [name, how, code] = line.split(' ')
      // A rejection is the provider failing; an answer that cannot be read does not fit.
      expect({ name, how, code }).toEqual({
        name,
        how,
        code: how === 'reject' ? 'PROVIDER_FAILED' : 'BAD_ANSWER',
      })
    }
  })
})
