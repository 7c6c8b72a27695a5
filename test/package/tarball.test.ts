/**
 * The package as a stranger gets it: `npm pack` (which builds through
 * `prepack`), then the tarball installed into a fresh project with the peers
 * from the registry, the examples typechecked there under TypeScript 5.9 and 7
 * and run, and the command run through npx. Needs the npm registry once: its
 * installs then come from the local npm cache (see `npm`). It is part of
 * `npm test` on purpose, so CI cannot skip it.
 */
import { execFile, spawn } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { entryPoints, exportsKey, lowestOf, missingPeerLine } from './entries.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))
const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
  name: string
  version: string
  peerDependencies: Record<string, string>
  exports: Record<string, { import: string; types: string }>
  [field: string]: unknown
}

/**
 * What the user's TypeScript toolchain is: both compilers side by side, Node's
 * types, ws's types for the own-transport example, and pg's (askseam/postgres
 * takes a `pg.Pool`, and pg ships no types of its own); and the verifier the
 * webhook-receiver example imports, as a receiver's project would have it.
 */
const toolchain = [
  'ts59@npm:typescript@5.9.3',
  'ts7@npm:typescript@7.0.2',
  '@types/node@20',
  '@types/ws@8',
  '@types/pg@8',
  'standardwebhooks@1',
]
const compilers = { '5.9': 'ts59', '7': 'ts7' } as const

/** Examples that finish on their own without a human, and what each prints. */
const headless: Record<string, RegExp> = {
  'ask-a-question': /needs an interactive terminal/,
  'caller-authority':
    /planner: \[\{"id":"go","selected":\[\]\}\]\nresearcher: DELEGATED_CALLER\n\(no agent\): CALLER_NOT_LIVE/,
  'custom-ui':
    /\? Which database\?[^\n]*\n\? Which cache\?[^\n]*\n\{"answers":\[\{"id":"db","selected":\["Postgres"\]\},\{"id":"cache","selected":\["Redis"\]\}\]\}/,
  inspect: /x:0 xstate\.init → "vacant"[\s\S]*"answered"[\s\S]*"closed"/,
  otel: /^\[\{"id":"db","selected":\[\]\}\]$/m,
  terminal: /PROVIDER_FAILED|needs an interactive terminal/,
  tool: /^\{"answers":\[\{"id":"db","selected":\["Postgres \(Recommended\)"\]\}\]\}$/m,
}

// A child npm behaves as in a user's shell, not as a lifecycle script of this package.
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !/^npm_(package|lifecycle|config_(?!cache|registry|userconfig))/i.test(name),
  ),
)

let work: string
let project: string
let tarball: string
let packed: string[]

/**
 * Ended before the hooks' timeout, so a slow install fails with npm's own
 * words instead of leaving an npm running in a folder the cleanup removes
 * (TAR_ENTRY_ERROR, spawn sh ENOENT).
 */
const NPM_TIMEOUT_MS = 540_000
const HOOK_TIMEOUT_MS = 600_000

/**
 * npm offline first: from the local npm cache, which holds every package once
 * a run (or \`npm ci\`) has fetched it, the installs here do not wait on the
 * registry. Only what the cache lacks (a first run, a peer's new release) is
 * fetched, by a second attempt that may use the network.
 */
const npm = async (args: string[], cwd = project) => {
  const options = { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: NPM_TIMEOUT_MS }
  const common = [...args, '--no-audit', '--no-fund']
  try {
    return await run('npm', [...common, '--offline'], options)
  } catch (error: unknown) {
    if (!/ENOTCACHED|ETARGET|No matching version/.test(String((error as Error).message))) {
      throw error
    }
    return run('npm', [...common, '--prefer-offline'], options)
  }
}

const node = (args: string[], options: { input?: string } = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: project, env, stdio: 'pipe' })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdin.end(options.input ?? '')
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })

/**
 * Imports each entry point, one after the other, in one fresh Node; says for
 * each how many names it exports, or the message it failed with.
 */
async function importEach(entries: readonly string[]): Promise<Record<string, string>> {
  const script = `for (const entry of ${JSON.stringify(entries)}) {
    await import(entry).then(
      (module) => console.log(entry + '\\t' + Object.keys(module).length),
      (error) => console.log(entry + '\\tERROR ' + error.message),
    )
  }`
  const { stdout } = await node(['--input-type=module', '-e', script])
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t')),
  )
}

/** tsc's diagnostics that concern this package or the project, not a peer's own declarations. */
async function typecheck(compiler: string, tsconfig: string): Promise<string[]> {
  const bin = path.join(project, 'node_modules', compiler, 'bin', 'tsc')
  const result = await run(process.execPath, [bin, '-p', tsconfig], { cwd: project, env }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? String(error),
  )
  return result
    .split('\n')
    .filter((line) => /error TS\d+/.test(line))
    .filter((line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/askseam/'))
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'askseam-package-'))
  project = path.join(work, 'project')
  await mkdir(project)
  const { stdout } = await npm(['pack', '--json', '--pack-destination', work], root)
  const [info] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }]
  tarball = path.join(work, info.filename)
  packed = info.files.map((file) => file.path)
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
  )
  await npm(['install', tarball])
}, HOOK_TIMEOUT_MS)

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true })
})

describe('npm pack', { timeout: 60_000 }, () => {
  it('builds dist/ and ships JavaScript, declarations, their maps and sources, LICENSE and CHANGELOG', () => {
    for (const file of ['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json', 'bin/askseam.js']) {
      expect(packed).toContain(file)
    }
    for (const { entry } of entryPoints) {
      const target = manifest.exports[exportsKey(entry)]
      expect(target, `${entry} is in the exports map`).toBeDefined()
      for (const file of [target!.import, target!.types]) {
        const shipped = file.replace(/^\.\//, '')
        expect(packed, entry).toContain(shipped)
        expect(packed, entry).toContain(`${shipped}.map`)
      }
    }
    expect(packed.filter((file) => file.includes('/page/'))).toEqual([])
    expect(packed.filter((file) => /export-machines|machine-export/.test(file))).toEqual([])
    expect(packed.filter((file) => /^(test|scripts|bench|docs|examples|etc)\//.test(file))).toEqual(
      [],
    )
  })

  it('every map points at a source in the tarball', async () => {
    const installed = path.join(project, 'node_modules', 'askseam')
    const maps = packed.filter((file) => file.endsWith('.map'))
    expect(maps.length).toBeGreaterThan(20)
    for (const map of maps) {
      const { sources } = JSON.parse(await readFile(path.join(installed, map), 'utf8')) as {
        sources: string[]
      }
      for (const source of sources) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(map), source))
        expect(packed, `${map} → ${source}`).toContain(target)
      }
    }
  })

  it('carries the fields a registry page shows', () => {
    for (const field of ['repository', 'homepage', 'bugs', 'keywords', 'license', 'engines']) {
      expect(manifest[field], field).toBeDefined()
    }
    expect(manifest.license).toBe('MIT')
  })

  it('npm publish --dry-run is clean', async () => {
    const { stderr } = await npm(['publish', '--dry-run', tarball], work)
    const complaints = stderr
      .split('\n')
      .filter((line) => /npm (warn|error)/i.test(line))
      // Said of this machine (no npm login), not of the package.
      .filter((line) => !/requires you to be logged in/.test(line))
    expect(complaints).toEqual([])
  })
})

describe('the installed package', { timeout: 60_000 }, () => {
  it('brings xstate and nothing else', async () => {
    interface Node {
      version?: string
      dependencies?: Record<string, Node>
    }
    const { stdout } = await npm(['ls', '--all', '--json'])
    // npm ls also names the optional peers it did not install, without a version.
    const installed = (node: Node | undefined): string[] =>
      Object.entries(node?.dependencies ?? {})
        .filter(([, child]) => child.version !== undefined)
        .flatMap(([name, child]) => [name, ...installed(child)])
    expect(installed(JSON.parse(stdout) as Node)).toEqual(['askseam', 'xstate'])
    const folders = await readdir(path.join(project, 'node_modules'))
    expect(folders.filter((name) => !name.startsWith('.')).sort()).toEqual(['askseam', 'xstate'])
  })

  it('without its peers, each entry point that needs one says in one line what to install', async () => {
    const results = await importEach(entryPoints.map(({ entry }) => entry))
    for (const point of entryPoints) {
      const { entry, peers } = point
      if (peers.length === 0) expect(results[entry], entry).toMatch(/^\d+$/)
      else expect(results[entry], entry).toBe(missingPeerLine(point, peers[0]!))
    }
  })

  it(
    'npx askseam --version prints the version; --help reads for npm users; a missing peer is one line',
    { timeout: 60_000 },
    async () => {
      const version = await run('npx', ['--no-install', 'askseam', '--version'], {
        cwd: project,
        env,
      })
      expect(version.stdout).toBe(`${manifest.version}\n`)
      const bin = path.join('node_modules', '.bin', 'askseam')
      const help = await node([bin, '--help'])
      expect(help.code).toBe(0)
      expect(help.stdout).toContain('askseam [demo] [--timeout SECONDS] [--web]')
      expect(help.stdout).not.toContain('npm start')
      const demo = await node([bin, 'demo'])
      expect(demo.code).toBe(1)
      expect(demo.stderr).toBe(
        'askseam: askseam/terminal needs the "marked" package: npm install marked\n',
      )
    },
  )
})

describe.each([
  ['latest', (range: string) => range],
  ['lowest', (range: string) => lowestOf(range) ?? range],
] as const)('with each peer at the %s version its range admits', (which, versionOf) => {
  // When every peer's lowest version is the one the latest pass installed, this pass would repeat it.
  let repeats = false
  beforeAll(async () => {
    const wanted = Object.entries(manifest.peerDependencies).map(([name, range]) => ({
      name,
      version: versionOf(range),
    }))
    if (which === 'lowest') {
      const versions = await Promise.all(
        wanted.map(({ name }) =>
          readFile(path.join(project, 'node_modules', name, 'package.json'), 'utf8').then(
            (text) => (JSON.parse(text) as { version: string }).version,
          ),
        ),
      )
      repeats = wanted.every(({ version }, index) => version === versions[index])
      if (repeats) return
    }
    await npm([
      'install',
      ...wanted.map(({ name, version }) => `${name}@${version}`),
      ...(which === 'latest' ? toolchain : []),
    ])
  }, HOOK_TIMEOUT_MS)

  it('every entry point imports', { timeout: 60_000 }, async (context) => {
    if (repeats) context.skip('the lowest versions are the latest ones: covered above')
    const results = await importEach(entryPoints.map(({ entry }) => entry))
    for (const { entry } of entryPoints) expect(results[entry], entry).toMatch(/^\d+$/)
  })

  it.runIf(which === 'latest')(
    'and each one missing its peer (moved out of node_modules) fails with the one line',
    { timeout: 120_000 },
    async () => {
      for (const point of entryPoints) {
        const { entry, peers } = point
        for (const peer of peers) {
          const home = path.join(project, 'node_modules', peer)
          const aside = path.join(work, 'aside')
          await rename(home, aside)
          try {
            expect((await importEach([entry]))[entry]).toBe(missingPeerLine(point, peer))
          } finally {
            await rename(aside, home)
          }
        }
      }
    },
  )

  it.runIf(which === 'latest')(
    'every entry point and example compiles for a user under TypeScript 5.9 and 7 (strict, nodenext, no implicit @types)',
    { timeout: 300_000 },
    async () => {
      await cp(path.join(root, 'examples'), path.join(project, 'examples'), { recursive: true })
      // Every entry point, also those no example imports yet.
      await writeFile(
        path.join(project, 'examples', 'entries.ts'),
        entryPoints
          .map(({ entry }, index) => `import type * as entry${index} from '${entry}'`)
          .concat(`export type All = [${entryPoints.map((_, i) => `typeof entry${i}`).join(', ')}]`)
          .join('\n'),
      )
      const tsconfig = JSON.parse(
        (await readFile(path.join(root, 'examples', 'tsconfig.json'), 'utf8')).replace(
          /^\s*\/\/.*$/gm,
          '',
        ),
      ) as { compilerOptions: Record<string, unknown> }
      // As strict as a user can be: the package's own declarations are checked too.
      tsconfig.compilerOptions.skipLibCheck = false
      tsconfig.compilerOptions.exactOptionalPropertyTypes = true
      const errors = await Promise.all(
        Object.entries(compilers).map(async ([version, compiler]) => {
          const options = { ...tsconfig.compilerOptions }
          // 5.9 also emits the JavaScript the examples run as.
          if (version === '5.9') Object.assign(options, { noEmit: false, outDir: '../out' })
          const file = `tsconfig.${version}.json`
          await writeFile(
            path.join(project, 'examples', file),
            JSON.stringify({ ...tsconfig, compilerOptions: options }),
          )
          return [version, await typecheck(compiler, `examples/${file}`)] as const
        }),
      )
      expect(Object.fromEntries(errors)).toEqual({ '5.9': [], '7': [] })
    },
  )

  it.for(Object.entries(headless))(
    'example %s runs headless',
    { timeout: 60_000 },
    async ([name, expected], context) => {
      if (repeats) context.skip('the lowest versions are the latest ones: covered above')
      const built = (await readdir(path.join(project, 'out')).catch(() => [])) as string[]
      expect(built, 'compiled by the TypeScript 5.9 check').toContain(`${name}.js`)
      const { code, stdout, stderr } = await node([path.join('out', `${name}.js`)])
      expect(stderr).toBe('')
      expect(stdout).toMatch(expected)
      expect(code).toBe(0)
    },
  )

  it('example web-console answers over its WebSocket', { timeout: 60_000 }, async (context) => {
    if (repeats) context.skip('the lowest versions are the latest ones: covered above')
    const child = spawn(process.execPath, [path.join('out', 'web-console.js')], {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const pageUrl = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString()
        const match = /Answer in your browser: (\S+)/.exec(stdout)
        if (match !== null) resolve(match[1]!)
      })
      child.on('close', () => reject(new Error(`exited before printing its URL: ${stdout}`)))
    })
    const page = new URL(pageUrl)
    const socket = new WebSocket(`ws://${page.host}/ws${page.search}`)
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string; rpcId?: string }
      if (frame.type !== 'question/requested') return
      socket.send(
        JSON.stringify({
          type: 'question/respond',
          rpcId: frame.rpcId,
          result: { ok: true, value: { answers: [{ id: 'region', selected: ['eu-west-1'] }] } },
        }),
      )
    })
    expect(await exited).toBe(0)
    expect(stdout).toContain('{"answers":[{"id":"region","selected":["eu-west-1"]}]}')
  })
})
