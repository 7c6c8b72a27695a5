/**
 * Each framework's README section is a file under examples/adapters; this
 * runs every one as a user would (tsx, the package names resolved to the
 * sources by examples/adapters/tsconfig.json) and checks what the model got.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const run = promisify(execFile)

describe('examples/adapters', () => {
  it.each(['ai-sdk', 'openai-agents', 'langgraph'])(
    '%s.ts runs the framework loop to the end with the answer in the tool result',
    { timeout: 60_000 },
    async (name) => {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', `examples/adapters/${name}.ts`],
        // The examples' tsconfig maps `askseam/...` to the sources, so no build is needed.
        {
          cwd: ROOT,
          env: { ...process.env, TSX_TSCONFIG_PATH: 'examples/adapters/tsconfig.json' },
        },
      )
      expect(stdout).toContain(
        'the model got: {"answers":[{"id":"db","selected":["Postgres (Recommended)"]}]}',
      )
      expect(stdout).toContain('the model said: Setting up Postgres.')
    },
  )
})
