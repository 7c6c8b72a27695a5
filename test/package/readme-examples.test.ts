import { readFile, readdir } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { entryPoints } from './entries.js'

/**
 * STYLE 19: every README example is a file under examples/ (which the
 * packaging test typechecks and runs), and the README shows that file's code
 * exactly: a block marked `<!-- example: examples/NAME.ts -->`.
 */
const root = fileURLToPath(new URL('../../', import.meta.url))
const readme = await readFile(path.join(root, 'README.md'), 'utf8')
const shown = new Map(
  [...readme.matchAll(/<!-- example: (examples\/[\w-]+\.ts) -->\s*```ts\n([\s\S]*?)```/g)].map(
    (match) => [match[1]!, match[2]!] as const,
  ),
)
const files = (await readdir(path.join(root, 'examples')))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => `examples/${name}`)

describe('README examples', () => {
  it('every example file is shown in the README, and every marked block is a file', () => {
    expect([...shown.keys()].sort()).toEqual(files.sort())
  })

  it.each(files)('%s is shown exactly as it is', async (file) => {
    expect(shown.get(file)).toBe(await readFile(path.join(root, file), 'utf8'))
  })

  it('no TypeScript block in the README is left unmarked', () => {
    const blocks = readme.match(/```ts\n/g) ?? []
    expect(blocks.length).toBe(shown.size)
  })

  it('the install table names every entry point and its peers', () => {
    for (const { entry, peers, typesOnly = [] } of entryPoints) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${entry}\` `))
      expect(row, entry).toBeDefined()
      for (const peer of [...peers, ...typesOnly]) expect(row, entry).toContain(`\`${peer}\``)
    }
  })
})
