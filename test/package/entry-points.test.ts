import { execFile } from 'node:child_process'
import { readFileSync, existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { admits, entryPoints, exportsKey, lowestOf } from './entries.js'

/**
 * DESIGN §1: each entry point may load only its own runtime dependencies.
 * Walks the static and dynamic imports reachable from each entry's source and
 * lists the packages they name.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { import: string; types: string }>
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
  devDependencies: Record<string, string>
}

const importPattern =
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

function packagesReachedFrom(entry: string): Set<string> {
  const seen = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    // Comments hold usage examples that import the package itself.
    const source = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '')
    for (const match of source.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2]!
      if (/^import\s+type\s/.test(match[0]) || /^export\s+type\s/.test(match[0])) continue
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts')
        visit(target)
      } else if (!specifier.startsWith('node:')) {
        packages.add(
          specifier.startsWith('@')
            ? specifier.split('/').slice(0, 2).join('/')
            : specifier.split('/')[0]!,
        )
      }
    }
  }
  visit(entry)
  return packages
}

const sourceOf = (target: string) =>
  path.join(root, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'))

/** The packages Node loads at run time when a process imports `source` (see loaded-packages.ts). */
async function packagesLoadedBy(source: string): Promise<string[]> {
  const script = path.join(root, 'test/package/loaded-packages.ts')
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', script, source],
    { cwd: root },
  )
  return JSON.parse(stdout) as string[]
}

const allowed: Record<string, string[]> = Object.fromEntries(
  entryPoints.map(({ entry, peers }) => [exportsKey(entry), ['xstate', ...peers]]),
)

describe('entry points', () => {
  it('the exports map holds exactly the pinned entry points, each with its source', () => {
    const entries = Object.keys(packageJson.exports).filter((key) => key !== './package.json')
    expect(entries.sort()).toEqual(Object.keys(allowed).sort())
    for (const key of entries) {
      const target = packageJson.exports[key] as { import: string; types: string }
      expect(existsSync(sourceOf(target.import)), `${key} → ${target.import}`).toBe(true)
      expect(target.types).toBe(target.import.replace(/\.js$/, '.d.ts'))
    }
  })

  it.each(Object.entries(allowed))('%s loads only %j', (key, packages) => {
    const target = packageJson.exports[key] as { import: string }
    const reached = packagesReachedFrom(sourceOf(target.import))
    // Its own peers, and nothing but them and xstate (a store needs no xstate at all).
    expect([...reached].filter((name) => !packages.includes(name))).toEqual([])
    expect(packages.filter((name) => name !== 'xstate' && !reached.has(name))).toEqual([])
  })

  // DESIGN §13: without telemetry nothing of OpenTelemetry is loaded. Proved
  // at run time too, since a static walk cannot see a module a peer itself loads.
  it('importing askseam loads xstate alone at run time, and askseam/otel loads @opentelemetry/api', async () => {
    expect(await packagesLoadedBy(sourceOf('./dist/protocol/index.js'))).toEqual(['xstate'])
    const otel = await packagesLoadedBy(sourceOf('./dist/otel/index.js'))
    expect(otel).toContain('@opentelemetry/api')
    expect(otel.filter((name) => !name.startsWith('@opentelemetry/api'))).toEqual([])
  })

  it('xstate is the one dependency; every peer is optional, ranged, and pinned for development', () => {
    expect(Object.keys(packageJson.dependencies)).toEqual(['xstate'])
    const peers = [
      ...new Set(entryPoints.flatMap(({ peers, typesOnly = [] }) => [...peers, ...typesOnly])),
    ].sort()
    expect(Object.keys(packageJson.peerDependencies).sort()).toEqual(peers)
    for (const peer of peers) {
      expect(packageJson.peerDependenciesMeta[peer], peer).toEqual({ optional: true })
      // The suite runs at the pin, the packaging test at the range's lowest and latest.
      const pinned = packageJson.devDependencies[peer]
      expect(pinned, `${peer} is pinned for development`).toMatch(/^\d+\.\d+\.\d+$/)
      expect(lowestOf(packageJson.peerDependencies[peer]!), peer).not.toBeUndefined()
      expect(admits(packageJson.peerDependencies[peer]!, pinned!), peer).toBe(true)
    }
    for (const [name, version] of Object.entries(packageJson.devDependencies)) {
      expect(version, name).toMatch(/^\d+\.\d+\.\d+$/)
    }
  })
})
