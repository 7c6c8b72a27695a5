/**
 * An OpenAI Agents run in its own process, asking through the shared SQLite
 * store with the tool's `interrupt` option. `start` runs until the ask parks
 * the run, saves the RunState to STATE_FILE and waits to be killed; `resume`
 * restores it, approves the parked call and runs it to the end.
 * Usage: openai-agent.ts ASKS_DB STATE_FILE start|resume
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { Agent, RunState, Runner, Usage } from '@openai/agents'
import type { AgentInputItem, Model } from '@openai/agents'
import { askUserQuestionTool } from '../../../src/adapters/openai-agents/index.js'
import { durableSeam } from './durable.js'

const [asksPath, statePath, mode] = process.argv.slice(2)
if (asksPath === undefined || statePath === undefined)
  throw new Error('usage: ASKS_DB STATE_FILE start|resume')
const print = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`)

const dbQuestion = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres (Recommended)' }, { label: 'SQLite' }],
}

function resultsIn(input: string | AgentInputItem[]): string[] {
  if (typeof input === 'string') return []
  return input.flatMap((item) =>
    item.type === 'function_call_result'
      ? [
          typeof item.output === 'string'
            ? item.output
            : !Array.isArray(item.output) && item.output.type === 'text'
              ? item.output.text
              : JSON.stringify(item.output),
        ]
      : [],
  )
}

const model: Model = {
  async getResponse({ input }) {
    const results = resultsIn(input)
    if (results.length > 0) {
      print({ event: 'model-received', results })
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
    }
    return {
      usage: new Usage(),
      output: [
        {
          type: 'function_call',
          callId: 'call-1',
          name: 'ask_user_question',
          arguments: JSON.stringify({ questions: [dbQuestion] }),
          status: 'completed',
        },
      ],
    }
  },
  getStreamedResponse() {
    throw new Error('not scripted')
  },
}

const seam = durableSeam(asksPath, { waitForProviderMs: 10_000 })
const agent = new Agent({
  name: 'Builder',
  model,
  tools: [askUserQuestionTool(seam, { interrupt: true })],
})
const runner = new Runner({ tracingDisabled: true })

if (mode === 'start') {
  const result = await runner.run(agent, 'Set up the database.')
  writeFileSync(statePath, result.state.toString())
  print({ event: 'interrupted', interruptions: result.interruptions.length })
  // Parked: the test kills this process while the human decides.
  setInterval(() => undefined, 60_000)
} else {
  const state = await RunState.fromString(agent, readFileSync(statePath, 'utf8'))
  for (const interruption of state.getInterruptions()) state.approve(interruption)
  print({ event: 'resuming' })
  const result = await runner.run(agent, state)
  print({ event: 'finished', output: result.finalOutput })
  await seam.close()
}
