/**
 * `npm start -- --web` run to its end, answered over the console's own
 * WebSocket as a tab would: once the agent has its answers, the console tells
 * the tab the session ended (1001), not that it is restarting, and the demo
 * exits on its own.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ChildProcess } from 'node:child_process'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const folders: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  // A demo a failed test left waiting is not left running.
  for (const child of children.splice(0)) child.kill('SIGKILL')
})
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

interface Requested {
  type: 'question/requested'
  rpcId: string
  questions: { id: string; options?: { label: string }[] }[]
}

/** Each question answered with its first option, a free-text one skipped. */
function firstOptions({ questions }: Requested) {
  return {
    answers: questions.map(({ id, options }) => ({
      id,
      selected: options === undefined ? [] : [options[0]?.label],
    })),
  }
}

describe('the web demo run to its end', () => {
  it('tells its tab the session ended, and exits', { timeout: 90_000 }, async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'askseam-web-demo-'))
    folders.push(home)
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--web'], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: home, NO_COLOR: '1', ASKSEAM_DEMO_STORE: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    let output = ''
    const url = await new Promise<URL>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString()
        const found = /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.exec(output)
        if (found !== null) resolve(new URL(found[0]))
      }
      child.stdout.on('data', read)
      child.stderr.on('data', read)
      child.on('close', () => reject(new Error(`ended before its URL: ${output}`)))
    })

    const socket = new WebSocket(`ws://${url.host}/ws${url.search}`)
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)))
    const answered: string[] = []
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string }
      if (frame.type !== 'question/requested') return
      const requested = frame as Requested
      answered.push(requested.questions.map(({ id }) => id).join(','))
      socket.send(
        JSON.stringify({
          type: 'question/respond',
          rpcId: requested.rpcId,
          result: { ok: true, value: firstOptions(requested) },
        }),
      )
    })

    expect(await closed).toBe(1001)
    expect(await exited).toBe(0)
    expect(answered).toHaveLength(2)
    expect(output).toContain('{"answers":[{"id":"plan","selected":["Approve"]}]}')
  })
})
