/**
 * `npm run sizes` (scripts/sizes.ts): issue 21's limits as the script
 * applies them, run as CI will run it, on folders written for each test:
 * where each limit lies, what an offender is called, and the exit code.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const script = path.join(root, 'scripts', 'sizes.ts')
const folders: string[] = []

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function folderWith(files: Record<string, string>): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'askseam-sizes-'))
  folders.push(folder)
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(folder, name), text)
  return folder
}

/** `lines` lines of statements. */
const body = (lines: number) => '  void 0\n'.repeat(lines)

/** Lines of code that are no function, to make a file `lines` long in all. */
const filler = (lines: number) => 'export const filler = 0\n'.repeat(lines)

async function sizes(folder: string): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', script, folder],
      {
        cwd: root,
      },
    )
    return { code: 0, stdout }
  } catch (error: unknown) {
    const failed = error as { code?: number; stdout?: string }
    if (typeof failed.code !== 'number') throw error
    return { code: failed.code, stdout: failed.stdout ?? '' }
  }
}

describe('npm run sizes', () => {
  it('passes a 400-line file whose longest function is 150 lines', async () => {
    // 150 lines: the declaration, 148 statements, the closing brace.
    const within = `export function longest() {\n${body(148)}}\n`
    const folder = folderWith({ 'within.ts': within + filler(400 - 150) })
    expect(await sizes(folder)).toEqual({
      code: 0,
      stdout: `sizes: every file in ${path.relative(root, folder)}/ within 400 lines, every function within 150\n`,
    })
  })

  it('names a 401-line file, and each function, method or closure over 150 lines, and fails', async () => {
    const folder = folderWith({
      'long.ts': filler(401),
      'declared.ts': `export function declared() {\n${body(149)}}\n`,
      'arrow.ts': `export const arrow = () => {\n${body(149)}}\n`,
      'method.ts': `export class Holder {\n  method() {\n${body(149)}  }\n}\n`,
      // The closure's length counts the function nested in it; the nested one is within.
      'outer.ts': `export function outer() {\n  return [1].map(() => {\n${body(147)}  })\n}\n`,
    })
    const { code, stdout } = await sizes(folder)
    // Paths are shown from where the script runs (npm runs it at the root: src/...).
    const shown = (name: string) => path.relative(root, path.join(folder, name))
    expect(code).toBe(1)
    expect(stdout.trim().split('\n')).toEqual([
      `${shown('arrow.ts')}: arrow (lines 1–151): 151 lines`,
      `${shown('declared.ts')}: declared (lines 1–151): 151 lines`,
      `${shown('long.ts')}: file: 401 lines`,
      `${shown('method.ts')}: method (lines 2–152): 151 lines`,
      `${shown('outer.ts')}: outer (lines 1–151): 151 lines`,
    ])
  })
})
