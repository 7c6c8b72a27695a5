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

/**
 * A ratio against its goal, as the tables print it: `≤ 1.5× met` or
 * `≤ 1.5× NOT met`. The benchmarks report; nothing fails on a missed goal.
 */
export function goal(ratio: number, atMost: number, unit = '×'): string {
  return `≤ ${atMost}${unit} ${ratio <= atMost ? 'met' : 'NOT met'}`
}

/** Lets the microtasks and immediates of a burst run: what is still held after it is what stays. */
export const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * The heap each of `count` things holds, measured one way for every subject:
 * a full collection, `count` calls of `make` kept in one array, a turn of the
 * event loop for their microtasks, another full collection. Returns the bytes
 * per thing and what was made, for the caller to end.
 */
export async function heapPer<T>(
  count: number,
  make: (index: number) => T,
): Promise<{ bytes: number; made: T[] }> {
  // Filled before the first reading, so storing what is made allocates nothing.
  const slots: (T | null)[] = []
  for (let index = 0; index < count; index++) slots.push(null)
  gc()
  const before = process.memoryUsage().heapUsed
  for (let index = 0; index < count; index++) slots[index] = make(index)
  await turn()
  gc()
  return { bytes: (process.memoryUsage().heapUsed - before) / count, made: slots as T[] }
}
