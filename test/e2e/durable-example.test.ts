/**
 * The README's durable example as a user runs it (DESIGN §10): the real
 * `examples/durable.ts` in a project folder of its own and the real `askseam
 * console --store` (or `--postgres`) as separate processes, in either start
 * order. The console stops, by Ctrl-C (SIGINT) or SIGKILL, while the question
 * is open: the agent keeps waiting, the console comes back on the same port
 * and token, shows the same ask, and an answer given there through its
 * WebSocket reaches the agent, which prints it and exits 0.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { describePostgres, freshSchema } from '../support/postgres.js'
import { consoleToken, freePort } from '../support/console-process.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAIN = path.join(ROOT, 'src/cli/main.ts')
// By path: the example runs in a folder of its own, where `--import tsx` would not resolve.
const TSX = path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')
const EXAMPLE = readFileSync(path.join(ROOT, 'examples/durable.ts'), 'utf8')
const ANSWER = { answers: [{ id: 'go', selected: ['Deploy'] }] }

const cleanups: Array<() => void | Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A project folder of the user's: the example, and `askseam` resolving to this checkout's sources. */
function project(store: 'sqlite' | 'postgres'): { dir: string; example: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'askseam-durable-example-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  // As a fresh project must say (the example uses top-level await): ESM.
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'my-agent', private: true, type: 'module' }),
  )
  const source = (entry: string) => [path.join(ROOT, 'src', entry, 'index.ts')]
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        strict: true,
        paths: {
          askseam: source('protocol'),
          'askseam/sqlite': source('stores/sqlite'),
          'askseam/postgres': source('stores/postgres'),
        },
      },
    }),
  )
  let code = EXAMPLE
  if (store === 'postgres') {
    // The same program on the store for many hosts: only the store's two lines differ.
    const swaps: Array<[string, string]> = [
      [
        "import { createSqliteStore } from 'askseam/sqlite'",
        "import { createPostgresStore } from 'askseam/postgres'",
      ],
      [
        "createSqliteStore({ path: 'asks.sqlite' })",
        'createPostgresStore({ connectionString: process.env.ASKS_URL })',
      ],
    ]
    for (const [from, to] of swaps) {
      expect(code, 'examples/durable.ts still has this line').toContain(from)
      code = code.replace(from, to)
    }
  }
  const example = path.join(dir, 'durable.ts')
  writeFileSync(example, code)
  return { dir, example }
}

interface Running {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

function run(args: string[], options: { cwd: string; env?: Record<string, string> }): Running {
  const child = spawn(process.execPath, ['--import', TSX, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  })
  return { child, output: () => output, exited }
}

async function until<T>(read: () => T | undefined, what: string, running?: Running): Promise<T> {
  const end = Date.now() + 45_000
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}${running ? `: ${running.output()}` : ''}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** `askseam console` on a fixed port and token; resolves once it printed its URL. */
async function startConsole(storeArgs: string[], port: number, token: string, cwd: string) {
  const console = run([MAIN, 'console', ...storeArgs, '--port', String(port), '--token', token], {
    cwd,
  })
  const url = await until(
    () => /http:\/\/\S+/.exec(console.output())?.[0],
    'the console URL',
    console,
  )
  return { ...console, url }
}

/** A tab of the console, as its WebSocket: the frames it received. */
function tab(url: string): { socket: WebSocket; frames: Array<Record<string, unknown>> } {
  const page = new URL(url)
  const socket = new WebSocket(`ws://${page.host}/ws?token=${page.searchParams.get('token')}`)
  const frames: Array<Record<string, unknown>> = []
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as Record<string, unknown>))
  socket.on('error', () => undefined) // a console stopped under it: the test reads what arrived
  cleanups.push(() => socket.terminate())
  return { socket, frames }
}

const requested = (frames: Array<Record<string, unknown>>) =>
  frames.find((frame) => frame.type === 'question/requested')

type Order = 'agent first' | 'console first'
type Stop = 'SIGINT' | 'SIGKILL'
const cases: Array<[Order, Stop]> = [
  ['agent first', 'SIGINT'],
  ['agent first', 'SIGKILL'],
  ['console first', 'SIGINT'],
  ['console first', 'SIGKILL'],
]

function scenarios(store: 'sqlite' | 'postgres') {
  it.each(cases)(
    '%s; the console stopped with %s and started again; the answer reaches the agent',
    async (order, stop) => {
      const { dir, example } = project(store)
      let storeArgs = ['--store', path.join(dir, 'asks.sqlite')]
      let env: Record<string, string> = {}
      if (store === 'postgres') {
        const schema = await freshSchema()
        cleanups.push(() => schema.drop())
        storeArgs = ['--postgres', schema.url]
        env = { ASKS_URL: schema.url }
      }
      const port = await freePort()
      const token = consoleToken()
      const startAgent = () =>
        run([example], {
          cwd: dir,
          env: { ...env, TSX_TSCONFIG_PATH: path.join(dir, 'tsconfig.json') },
        })

      let agent: Running | undefined
      if (order === 'agent first') {
        agent = startAgent()
        // Nothing presents the question yet: the agent waits for a UI instead of failing.
        await new Promise((resolve) => setTimeout(resolve, 3_000))
        expect(agent.child.exitCode, agent.output()).toBeNull()
      }
      const first = await startConsole(storeArgs, port, token, dir)
      agent ??= startAgent()
      const before = tab(first.url)
      const shown = await until(() => requested(before.frames), 'the question', agent)
      expect(shown.questions).toEqual([
        {
          id: 'go',
          question: 'Deploy v2.4.0 to production?',
          options: [{ label: 'Deploy' }, { label: 'Wait' }],
        },
      ])

      first.child.kill(stop)
      const code = await first.exited
      if (stop === 'SIGINT') {
        // A graceful stop: exit 0, and the agent's question is not ended by it.
        expect(code, first.output()).toBe(0)
        expect(
          before.frames.filter((frame) => frame.type === 'question/resolved'),
          'a console stopping gracefully ends no ask',
        ).toEqual([])
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expect(agent.child.exitCode, agent.output()).toBeNull()
      expect(agent.output()).toBe('')

      const second = await startConsole(storeArgs, port, token, dir)
      expect(second.url).toBe(first.url)
      const after = tab(second.url)
      const again = await until(() => requested(after.frames), 'the question again', agent)
      expect(again.rpcId).toBe(shown.rpcId)
      after.socket.send(
        JSON.stringify({
          type: 'question/respond',
          rpcId: again.rpcId,
          result: { ok: true, value: ANSWER },
        }),
      )
      expect(await agent.exited, agent.output()).toBe(0)
      expect(agent.output()).toBe("[ { id: 'go', selected: [ 'Deploy' ] } ]\n")

      // Run again, as its header says: the answer is kept for the key, and nobody is asked twice.
      const rerun = startAgent()
      expect(await rerun.exited, rerun.output()).toBe(0)
      expect(rerun.output()).toBe("[ { id: 'go', selected: [ 'Deploy' ] } ]\n")
      second.child.kill('SIGINT')
      expect(await second.exited, second.output()).toBe(0)
    },
    150_000,
  )
}

describe('the README durable example on SQLite', () => {
  scenarios('sqlite')
})

describePostgres('the README durable example on Postgres', () => {
  scenarios('postgres')
})
