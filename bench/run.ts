import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'

/**
 * Compiles the benchmarks and the code they measure with tsc (bench/tsconfig.json),
 * runs every bench/*.bench.ts from that build (or those named, `npm run bench --
 * core heap`) in a fresh Node process each (so one benchmark's heap does not
 * weigh on the next), prints their Markdown, and with --write records it in
 * docs/benchmarks.md with the machine, the date and the load it ran under.
 */
const here = fileURLToPath(new URL('.', import.meta.url))
const build = fileURLToPath(new URL('../.bench-build/bench/', import.meta.url))
rmSync(build, { recursive: true, force: true })
const compiled = spawnSync(
  process.execPath,
  [
    fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)),
    '-p',
    `${here}tsconfig.json`,
  ],
  { stdio: 'inherit' },
)
if (compiled.status !== 0) throw new Error('the benchmarks do not compile (bench/tsconfig.json)')
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const files = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort()

const started = new Date()
const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU'
const machine = `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.version}, ${os.platform()} ${os.release()}`

/** Each benchmark run: its file, and its Markdown with where and when it ran. */
const sections = new Map<string, string>()
let failed = false
for (const file of files) {
  console.error(`running bench/${file} …`)
  const load = os.loadavg()[0]?.toFixed(1) ?? '?'
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=8192', `${build}${file.replace(/\.ts$/, '.js')}`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
  )
  if (result.status !== 0) {
    failed = true
    console.error(`bench/${file} failed with exit code ${String(result.status)}`)
    continue
  }
  const recorded = `_Recorded ${started.toISOString().slice(0, 10)} on ${machine}; the 1-minute load average was ${load} when it started._`
  sections.set(file, `${result.stdout.trim()}\n\n${recorded}`)
  console.log(`${result.stdout.trim()}\n`)
}

/*
 * docs/benchmarks.md: a heading, then each benchmark's section after a
 * marker naming its file. A run of some benchmarks replaces only their
 * sections; the others keep theirs, each saying when it was recorded.
 */
const MARKER = /^<!-- bench\/(\S+) -->$/m
const HEADER = [
  '# Benchmarks',
  '',
  'Written by `npm run bench -- --write` (`npm run bench -- core heap --write` runs and rewrites',
  'those sections alone). Every ratio compares two subjects measured in the same run on the same',
  'machine; absolute numbers move with the machine and its load, which each section states.',
].join('\n')

/** The sections of an existing docs/benchmarks.md, by file. */
function recordedSections(document: string): Map<string, string> {
  const parts = document.split(MARKER).slice(1)
  const found = new Map<string, string>()
  for (let index = 0; index + 1 < parts.length; index += 2) {
    found.set(parts[index] as string, (parts[index + 1] as string).trim())
  }
  return found
}

if (process.argv.includes('--write') && !failed) {
  const path = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))
  const kept =
    only.length === 0 || !existsSync(path)
      ? new Map<string, string>()
      : recordedSections(readFileSync(path, 'utf8'))
  const all = new Map([...kept, ...sections])
  const document = [
    HEADER,
    ...[...all.keys()].sort().flatMap((file) => ['', `<!-- bench/${file} -->`, '', all.get(file)]),
    '',
  ].join('\n')
  writeFileSync(path, document)
  console.error(`wrote docs/benchmarks.md (${[...sections.keys()].join(', ')})`)
}
process.exitCode = failed ? 1 : 0
