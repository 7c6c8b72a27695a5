/**
 * The restart stories of DESIGN §11 with real processes killed with SIGKILL
 * on one SQLite store: a framework that re-runs a tool call after a restart
 * gets the stored answer (or attaches to the pending ask) instead of asking
 * the human twice.
 */
import { Agent, RunState, Runner, Usage } from '@openai/agents'
import type { AgentInputItem, Model, ModelRequest } from '@openai/agents'
import { afterEach, describe, expect, it } from 'vitest'
import { askUserQuestionTool } from '../../src/adapters/openai-agents/index.js'
import { UserQuestionError } from '../../src/protocol/index.js'
import { dbQuestion } from '../support/adapter-asks.js'
import { seamWithProvider } from '../support/controllable-provider.js'
import { killScripts, scratchDirectory, startScript } from './restart/processes.js'

const cleanups: Array<() => void | Promise<void>> = []
afterEach(async () => {
  await killScripts()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function scratch() {
  const directory = scratchDirectory()
  cleanups.push(() => directory.remove())
  return directory
}

const sqliteAnswer = { answers: [{ id: 'db', selected: ['SQLite'] }] }
const sqliteResult = '{"answers":[{"id":"db","selected":["SQLite"]}]}'

describe('restarts across processes on one SQLite store', () => {
  it(
    'LangGraph: killed while the human decides, answered in a console, the resumed thread re-runs the node and gets the answer without a second question',
    { timeout: 120_000 },
    async () => {
      const files = scratch()
      const asks = files.file('asks.db')
      const checkpoints = files.file('graph.db')
      const ui = startScript('console', [asks])
      await ui.waitFor('ready')
      const agent = startScript('langgraph-agent', [asks, checkpoints, 'start'])
      const presented = await ui.waitFor('presented', 60_000)
      expect(presented.questions).toEqual([dbQuestion])
      await agent.kill()

      ui.send({ askId: presented.askId, answer: sqliteAnswer })
      await ui.waitFor('answered')

      const resumed = startScript('langgraph-agent', [asks, checkpoints, 'resume'])
      const finished = await resumed.waitFor('finished', 60_000)
      expect(finished.results).toEqual([sqliteResult])
      expect(finished.last).toBe(`Got: ${sqliteResult}`)
      // The checkpoint already held the model's call: only the tools node ran again.
      expect(resumed.events.some((event) => event.event === 'model-called-tool')).toBe(false)
      expect(ui.events.filter((event) => event.event === 'presented')).toHaveLength(1)
    },
  )

  it(
    'OpenAI Agents: a run parked on its ask, serialised, killed and restored in a new process attaches by key; the human is asked once',
    { timeout: 120_000 },
    async () => {
      const files = scratch()
      const asks = files.file('asks.db')
      const state = files.file('run-state.json')
      const ui = startScript('console', [asks])
      await ui.waitFor('ready')
      const agent = startScript('openai-agent', [asks, state, 'start'])
      expect((await agent.waitFor('interrupted', 60_000)).interruptions).toBe(1)
      const presented = await ui.waitFor('presented')
      await agent.kill()

      const resumed = startScript('openai-agent', [asks, state, 'resume'])
      await resumed.waitFor('resuming', 60_000)
      ui.send({ askId: presented.askId, answer: sqliteAnswer })
      const received = await resumed.waitFor('model-received', 60_000)
      expect(received.results).toEqual([sqliteResult])
      expect((await resumed.waitFor('finished')).output).toBe('Done.')
      expect(ui.events.filter((event) => event.event === 'presented')).toHaveLength(1)
    },
  )
})

/** A model that asks once with `questions` under `callId`, then ends, recording what it got back. */
function askingModel(callId: string, questions: unknown[]): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    requests,
    async getResponse(request) {
      requests.push(request)
      if (requests.length === 1) {
        return {
          usage: new Usage(),
          output: [
            {
              type: 'function_call',
              callId,
              name: 'ask_user_question',
              arguments: JSON.stringify({ questions }),
              status: 'completed',
            },
          ],
        }
      }
      return {
        usage: new Usage(),
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Done.' }],
          },
        ],
      }
    },
    getStreamedResponse() {
      throw new Error('not scripted')
    },
  }
}

function resultOf(request: ModelRequest | undefined): unknown {
  const input = request?.input
  if (input === undefined || typeof input === 'string') return undefined
  const item = (input as AgentInputItem[]).find((entry) => entry.type === 'function_call_result')
  if (item?.type !== 'function_call_result') return undefined
  const { output } = item
  if (typeof output === 'string') return output
  return !Array.isArray(output) && output.type === 'text' ? output.text : JSON.stringify(output)
}

describe('keys in one process', () => {
  const runner = new Runner({ tracingDisabled: true })

  it('OpenAI Agents with interrupt: the parked ask is presented once, and the restored run collects its answer', async () => {
    const { seam, provider } = seamWithProvider()
    const model = askingModel('call-1', [dbQuestion])
    const agent = new Agent({
      name: 'Builder',
      model,
      tools: [askUserQuestionTool(seam, { interrupt: true })],
    })
    const parked = await runner.run(agent, 'Set up the database.')
    expect(parked.interruptions).toHaveLength(1)
    const presented = await provider.call(0)
    expect(presented.request.questions).toEqual([dbQuestion])

    const restored = await RunState.fromString(agent, parked.state.toString())
    for (const interruption of restored.getInterruptions()) restored.approve(interruption)
    const resumed = runner.run(agent, restored)
    presented.resolve(sqliteAnswer)
    expect((await resumed).finalOutput).toBe('Done.')
    expect(resultOf(model.requests[1])).toBe(sqliteResult)
    expect(provider.calls).toHaveLength(1)
  })

  it('a resumed call whose key now carries different questions gets INVALID_REQUEST on the key', async () => {
    const { seam, provider } = seamWithProvider()
    const earlier = seam.ask({
      key: 'call-1',
      questions: [{ id: 'name', question: 'Project name?' }],
    })
    ;(await provider.call(0)).resolve({ answers: [{ id: 'name', selected: [], custom: 'atlas' }] })
    await earlier
    const rejections: unknown[] = []
    const ask = seam.ask.bind(seam)
    seam.ask = (request) =>
      ask(request).catch((error: unknown) => {
        rejections.push(error)
        throw error
      })
    const model = askingModel('call-1', [dbQuestion])
    const agent = new Agent({ name: 'Builder', model, tools: [askUserQuestionTool(seam)] })
    await runner.run(agent, 'Set up the database.')
    expect(resultOf(model.requests[1])).toMatch(/^INVALID_REQUEST: .*key/)
    const [error] = rejections
    expect(error).toBeInstanceOf(UserQuestionError)
    expect((error as UserQuestionError).details?.field).toBe('key')
    expect(provider.calls).toHaveLength(1)
  })
})
