/**
 * What the model reads when an ask ends without an answer: each outcome is
 * produced for real (the terminal provider over streams posing as a TTY, the
 * web relay with a client sending the console's frame, the seam's own
 * deadline, the official MCP client), and the tool's line is checked: no
 * sentence said twice, a dismissal or a "Discuss" reads exactly the same
 * whichever UI it came from, and a timeout says how long was waited. The
 * lines are printed, to be read.
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
import { connectPair } from '../support/mcp-pair.js'
import type { McpPair } from '../support/mcp-pair.js'

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
      intent: { kind: 'plan-review' as const, approve: 'Approve' },
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

/** The tool's line when the web console's client sends a cancel with `reason` for `args`. */
async function webCancel(args: object, reason?: string): Promise<string> {
  const seam = createUserQuestions()
  seams.push(seam)
  const relay = createRelay(seam)
  const client = fakeClient()
  const connection = relay.connect(client)
  const line = createAskUserQuestionTool(seam).execute(args)
  await vi.waitFor(() => expect(client.framesOf('question/requested')).toHaveLength(1))
  const [requested] = client.framesOf('question/requested')
  // The frame the console page sends for its "Dismiss" and "Discuss" buttons.
  connection.receive(
    JSON.stringify({
      type: 'question/respond',
      rpcId: requested?.rpcId,
      result: {
        ok: false,
        error: reason === undefined ? { code: 'cancelled' } : { code: 'cancelled', reason },
      },
    }),
  )
  return line
}

const pairs: McpPair[] = []
/** The tool's line when the official MCP client answers the elicitation with `action`. */
async function mcpAnswer(action: 'cancel' | 'decline'): Promise<string> {
  const pair = await connectPair()
  pairs.push(pair)
  const line = createAskUserQuestionTool(pair.seam).execute(regionArgs)
  ;(await pair.inbox.next()).respond({ action })
  return line
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
  await Promise.all(pairs.splice(0).map((pair) => pair.close()))
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

    const webLine = await webCancel(planArgs, 'discuss')
    console.info(`terminal discuss → ${terminalLine}\nweb discuss      → ${webLine}`)
    expect(webLine).toBe(terminalLine)
    expect(terminalLine).toMatch(/^ASK_CANCELLED: The user wants to discuss the plan/)
    expect(terminalLine).toMatch(/Do not carry the plan out/)
    expectNoRepeats(terminalLine)
  })

  // An MCP client's cancel and decline carried no reason, and the model read the client's own words.
  it('a dismissal reads the same from the terminal, the web console, an MCP client and a UI of your own', async () => {
    const { input, output, shows } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false })
    const fromTerminal = createAskUserQuestionTool(seamWith(terminal)).execute(regionArgs)
    await shows('Which region?')
    input.write('\u0003')
    const terminalLine = await fromTerminal
    terminal.dispose()
    const ownUi: UserQuestionProvider = {
      ask: async () => {
        throw new UserQuestionError('Cancelled by user', 'ASK_CANCELLED')
      },
    }
    const lines = {
      'web dismiss': await webCancel(regionArgs, 'dismissed'),
      'web, no reason': await webCancel(regionArgs),
      'mcp cancel': await mcpAnswer('cancel'),
      'mcp decline': await mcpAnswer('decline'),
      'own UI': await createAskUserQuestionTool(seamWith(ownUi)).execute(regionArgs),
    }
    console.info(`terminal dismiss → ${terminalLine}`)
    expect(terminalLine).toMatch(/^ASK_CANCELLED: The user dismissed the questions\. /)
    for (const [ui, line] of Object.entries(lines)) expect([ui, line]).toEqual([ui, terminalLine])
  })

  // A "discuss" of an ordinary question told the model not to carry out a plan it never made.
  it('a "Discuss" of questions that are not a plan says nothing of a plan', async () => {
    const line = await webCancel(regionArgs, 'discuss')
    console.info(`web discuss, no plan → ${line}`)
    expect(line).toMatch(/^ASK_CANCELLED: The user wants to talk it over instead of answering\. /)
    expect(line).not.toMatch(/plan/i)
    expect(line).toMatch(/stop and wait for their message\.$/)
    expectNoRepeats(line)
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
    // A deadline under half a second read "within 0 seconds".
    expect(timeout(90)).toContain('Nobody answered within less than a second.')
    const field = formatToolError(
      new UserQuestionError('questions[0].id must not be blank', 'INVALID_REQUEST'),
    )
    expect(field).toMatch(/^INVALID_REQUEST: questions\[0\]\.id must not be blank\. /)
    for (const line of [timeout(45_000), timeout(90), field]) expectNoRepeats(line)
  })

  it('a "discuss" names the plan only when it is given the plan review that was asked', () => {
    const discuss = new UserQuestionError('discuss', 'ASK_CANCELLED', {
      details: { reason: 'discuss' },
    })
    expect(formatToolError(discuss, planArgs.questions)).toMatch(/Do not carry the plan out/)
    expect(formatToolError(discuss, regionArgs.questions)).not.toMatch(/plan/i)
    expect(formatToolError(discuss)).not.toMatch(/plan/i)
  })
})
