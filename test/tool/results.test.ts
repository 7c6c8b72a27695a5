/**
 * What the model reads when an ask ends without an answer: each outcome is
 * produced for real (the terminal provider over streams posing as a TTY, the
 * web relay with a client sending the console's frame, the seam's own
 * deadline), and the tool's line is checked: no sentence said twice, a web
 * "Discuss" reads exactly like a terminal "Discuss", and a timeout says how
 * long was waited. The lines are printed, to be read.
 */
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { UserQuestionProvider, UserQuestions } from '../../src/protocol/index.js'
import { createTerminalProvider } from '../../src/providers/terminal/index.js'
import { createRelay } from '../../src/providers/web/index.js'
import { createAskUserQuestionTool, formatToolError } from '../../src/tool/index.js'
import { UserQuestionError } from '../../src/protocol/index.js'
import { fakeClient } from '../providers/web/relay-harness.js'

const regionArgs = {
  questions: [
    {
      id: 'region',
      question: 'Which region?',
      options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
    },
  ],
}
const planArgs = {
  questions: [
    {
      id: 'plan',
      question: 'Approve this plan?',
      detail: '# Plan\n\n1. Build\n2. Ship',
      options: [{ label: 'Approve' }, { label: 'Revise' }],
      intent: { kind: 'plan-review', approve: 'Approve' },
    },
  ],
}

function fakeTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input })
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 })
  let screen = ''
  output.on('data', (chunk: Buffer) => (screen += chunk.toString()))
  const shows = (text: string) =>
    vi.waitFor(() => {
      if (!screen.includes(text)) throw new Error(`not yet: ${text}`)
    })
  return { input, output, shows }
}

/** The sentences of a tool line after its `CODE:` prefix. */
function sentencesOf(line: string): string[] {
  return line
    .slice(line.indexOf(':') + 1)
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim().toLowerCase())
    .filter((sentence) => sentence !== '')
}

/** No sentence repeats, and no sentence says again what the first one said. */
function expectNoRepeats(line: string): void {
  const sentences = sentencesOf(line)
  expect(new Set(sentences).size).toBe(sentences.length)
  const [first, ...rest] = sentences
  const opening = (first ?? '').split(/\s+/).slice(0, 4).join(' ')
  for (const sentence of rest) expect(sentence.startsWith(opening)).toBe(false)
  expect(line).not.toMatch(/dismissed the questions.*dismissed the questions/i)
  expect(line).not.toMatch(/nobody answered.*nobody answered/i)
}

const seams: UserQuestions[] = []
function seamWith(provider?: UserQuestionProvider, timeoutMs?: number): UserQuestions {
  const seam = createUserQuestions(timeoutMs === undefined ? {} : { timeoutMs })
  if (provider !== undefined) seam.registerProvider(provider)
  seams.push(seam)
  return seam
}

afterEach(async () => {
  vi.useRealTimers()
  await Promise.all(seams.splice(0).map((seam) => seam.close()))
})

describe('the tool lines the model reads', () => {
  it('a terminal dismissal: said once, then what to do', async () => {
    const { input, output, shows } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false })
    const result = createAskUserQuestionTool(seamWith(terminal)).execute(regionArgs)
    await shows('Which region?')
    input.write('\u0003')
    const line = await result
    console.info(`terminal dismiss → ${line}`)
    expect(line).toMatch(/^ASK_CANCELLED: The user dismissed the questions\. /)
    expectNoRepeats(line)
    terminal.dispose()
  })

  it('a web "Discuss" and a terminal "Discuss" read the same', async () => {
    const { input, output, shows } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false })
    const fromTerminal = createAskUserQuestionTool(seamWith(terminal)).execute(planArgs)
    await shows('Discuss instead')
    input.write('3')
    const terminalLine = await fromTerminal
    terminal.dispose()

    const webSeam = createUserQuestions()
    seams.push(webSeam)
    const relay = createRelay(webSeam)
    const client = fakeClient()
    const connection = relay.connect(client)
    const fromWeb = createAskUserQuestionTool(webSeam).execute(planArgs)
    await vi.waitFor(() => expect(client.framesOf('question/requested')).toHaveLength(1))
    const [requested] = client.framesOf('question/requested')
    // The frame the console page sends for its "Discuss" button.
    connection.receive(
      JSON.stringify({
        type: 'question/respond',
        rpcId: requested?.rpcId,
        result: { ok: false, error: { code: 'cancelled', reason: 'discuss' } },
      }),
    )
    const webLine = await fromWeb
    console.info(`terminal discuss → ${terminalLine}\nweb discuss      → ${webLine}`)
    expect(webLine).toBe(terminalLine)
    expect(terminalLine).toMatch(/^ASK_CANCELLED: The user wants to discuss the plan/)
    expect(terminalLine).toMatch(/Do not carry the plan out/)
    expectNoRepeats(terminalLine)
  })

  it('a deadline: says how long was waited, and not twice that nobody answered', async () => {
    vi.useFakeTimers()
    const silent: UserQuestionProvider = { ask: () => new Promise(() => undefined) }
    const result = createAskUserQuestionTool(seamWith(silent, 120_000)).execute(regionArgs)
    await vi.advanceTimersByTimeAsync(120_000)
    const line = await result
    console.info(`deadline → ${line}`)
    expect(line).toMatch(/^ASK_TIMEOUT: Nobody answered within 2 minutes\. Do not assume an answer/)
    expectNoRepeats(line)
  })

  it('spells other waits in words, and keeps a message that says more than the code', () => {
    const timeout = (ms: number) =>
      formatToolError(
        new UserQuestionError('nobody answered before the deadline', 'ASK_TIMEOUT', {
          details: { startedAt: 1_000, deadline: 1_000 + ms },
        }),
      )
    expect(timeout(45_000)).toContain('within 45 seconds.')
    expect(timeout(60_000)).toContain('within 1 minute.')
    expect(timeout(90 * 60_000)).toContain('within 1 hour 30 minutes.')
    // An MCP client's decline has no reason: its own message says what happened.
    const declined = formatToolError(
      new UserQuestionError('The user declined to answer in the MCP client.', 'ASK_CANCELLED', {
        details: { action: 'decline' },
      }),
    )
    expect(declined).toMatch(/^ASK_CANCELLED: The user declined to answer in the MCP client\. /)
    expectNoRepeats(declined)
    for (const line of [timeout(45_000), declined]) expectNoRepeats(line)
  })
})
