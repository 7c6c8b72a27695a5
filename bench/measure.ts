import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Small measuring helpers shared by the benchmarks. */

/** A file of the repository, from bench/ or from the compiled copy bench/run.ts makes. */
export function repoFile(path: string): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir)
    if (up === dir) throw new Error('bench: no package.json above the benchmarks')
    dir = up
  }
  return join(dir, path)
}

/** A full collection; the benchmarks run with --expose-gc. */
export function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc
  if (collect === undefined)
    throw new Error('run the benchmarks with node --expose-gc (npm run bench)')
  collect()
  collect()
}

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

export const median = (samples: readonly number[]) => percentile(samples, 50)

/** A Markdown table. */
export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n')
}
