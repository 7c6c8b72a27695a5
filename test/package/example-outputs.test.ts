/**
 * What the README shows an example printing is what it prints: each headless
 * example runs (against these sources, `askseam` mapped onto src/), and the
 * output written in its comments is compared with its real output. A block
 * of `// ` lines closing the program is its whole output; a comment after a
 * `console.log(…)` on the same line is one line of it. The README shows the
 * files exactly (readme-examples.test.ts), so this checks the README too.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const TSX = path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')
const dir = mkdtempSync(path.join(tmpdir(), 'askseam-example-outputs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const tsconfig = path.join(dir, 'tsconfig.json')
writeFileSync(
  tsconfig,
  JSON.stringify({
    compilerOptions: {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      strict: true,
      paths: Object.fromEntries(
        [
          ['askseam', 'protocol'],
          ['askseam/machines', 'machines'],
          ['askseam/tool', 'tool'],
          ['askseam/store', 'protocol/store'],
        ].map(([entry, folder]) => [entry, [path.join(ROOT, 'src', folder!, 'index.ts')]]),
      ),
    },
  }),
)

/**
 * The examples that finish on their own, without a terminal or a network,
 * and where each writes its whole output as a block of comments (after the
 * code that prints it); the others comment single `console.log` lines.
 */
const headless: Record<string, RegExp | undefined> = {
  inspect: /^await seam\.close\(\)\n((?:\/\/ .*\n)+)/m,
  'caller-authority': /^}\n((?:\/\/ .*\n)+)/m,
  'own-store': /^}\n(?:console\.log.*\n)+((?:\/\/ .*\n)+)/m,
  'custom-ui': undefined,
  'who-answers': /^await seam\.close\(\)\n((?:\/\/ .*\n)+)/m,
  tool: undefined,
}

/** What the example's comments say it prints: its whole output, and lines it logs. */
function writtenOutput(source: string, block: RegExp | undefined) {
  const whole = block?.exec(source)?.[1]
  return {
    whole: whole
      ?.trimEnd()
      .split('\n')
      .map((line) => line.slice(3)),
    lines: [...source.matchAll(/console\.log\([^\n]*\) \/\/ ([[{][^\n]*)$/gm)].map(
      (match) => match[1]!,
    ),
  }
}

describe('the output each example says it prints', () => {
  it.each(Object.entries(headless))('examples/%s.ts', { timeout: 60_000 }, async (name, block) => {
    const file = path.join(ROOT, 'examples', `${name}.ts`)
    const written = writtenOutput(readFileSync(file, 'utf8'), block)
    if (block !== undefined) expect(written.whole, 'the block of its output').toBeDefined()
    expect(written.whole ?? written.lines, 'the example shows some of its output').not.toEqual([])
    const { stdout, stderr } = await run(process.execPath, ['--import', TSX, file], {
      cwd: dir,
      env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig },
    })
    expect(stderr).toBe('')
    const printed = stdout.trimEnd().split('\n')
    if (written.whole !== undefined) expect(printed).toEqual(written.whole)
    for (const line of written.lines) expect(printed).toContain(line)
  })
})
