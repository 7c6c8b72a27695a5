/**
 * Each entry point loads its framework through importPeer: without the
 * framework installed, importing it fails with one line naming the package.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const HIDE = fileURLToPath(new URL('./fixtures/hide-peer.mjs', import.meta.url))

describe('an adapter whose framework is not installed', () => {
  it.each([
    ['ai-sdk', 'ai'],
    ['openai-agents', '@openai/agents'],
    ['langgraph', '@langchain/core'],
  ])('askseam/%s names %s in one line', { timeout: 60_000 }, async (entry, peer) => {
    const script = `import('./src/adapters/${entry}/index.ts').then(() => console.log('loaded'), (error) => { console.log(error.message); process.exit(3) })`
    const outcome = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--import', HIDE, '--input-type=module', '-e', script],
      { cwd: ROOT, env: { ...process.env, HIDE_PEER: peer } },
    ).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => error,
    )
    expect(outcome.code).toBe(3)
    expect(outcome.stdout).toBe(
      `askseam/${entry} needs the "${peer}" package: npm install ${peer}\n`,
    )
  })
})
