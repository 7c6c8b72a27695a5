import { spawnSync } from 'node:child_process'
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'

/**
 * Compiles the benchmarks and the code they measure with tsc (bench/tsconfig.json),
 * runs every bench/*.bench.ts from that build in a fresh Node process (so one
 * benchmark's heap does not weigh on the next), prints their Markdown, and with
 * --write records it with the machine it ran on in docs/benchmarks.md.
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

const sections: string[] = []
let failed = false
for (const file of files) {
  console.error(`running bench/${file} …`)
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
  sections.push(result.stdout.trim())
  console.log(`${result.stdout.trim()}\n`)
}

const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
const machine = `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.version}, ${os.platform()} ${os.release()}`
if (process.argv.includes('--write') && !failed) {
  const document = [
    '# Benchmarks',
    '',
    'Written by `npm run bench -- --write`. Every ratio compares two subjects measured in the same',
    'run on the same machine; absolute numbers move with the machine and its load.',
    '',
    `Machine: ${machine}. Recorded ${new Date().toISOString().slice(0, 10)}.`,
    '',
    ...sections.flatMap((section) => [section, '']),
  ].join('\n')
  writeFileSync(fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url)), document)
  console.error('wrote docs/benchmarks.md')
}
process.exitCode = failed ? 1 : 0
