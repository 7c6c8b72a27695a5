/**
 * The terminal provider over in-memory streams that pose as a TTY: what it
 * does when the input is no terminal, when the input closes mid-question,
 * when a queued ask aborts, and how it decides on colours and model text.
 */
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import { questionnaireMachine } from '../../../src/machines/questionnaire.machine.js'
import { UserQuestionError, createUserQuestions } from '../../../src/protocol/index.js'
import type { AskUserQuestionItem, ProviderRequest } from '../../../src/protocol/index.js'
import { createTerminalProvider, supportsColor } from '../../../src/providers/terminal/index.js'
import { createStyle } from '../../../src/providers/terminal/style.js'
import { renderView } from '../../../src/providers/terminal/view.js'
import { blankView } from '../../../src/providers/terminal/view-model.js'

const question: AskUserQuestionItem[] = [
  { id: 'go', question: 'Go ahead?', options: [{ label: 'Yes' }, { label: 'No' }] },
]

function fakeTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input })
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 })
  let screen = ''
  output.on('data', (chunk: Buffer) => (screen += chunk.toString()))
  const shows = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (screen.includes(text)) {
          output.off('data', check)
          resolve()
        }
      }
      output.on('data', check)
      check()
    })
  return { input, output, shows, screen: () => screen }
}

function request(
  questions: AskUserQuestionItem[],
  signal = new AbortController().signal,
): ProviderRequest {
  return { askId: 'test-1', questions, signal }
}

describe('createTerminalProvider over fake streams', () => {
  it('rejects at once when the input is not a TTY, saying what to do', async () => {
    const terminal = createTerminalProvider({ input: new PassThrough(), output: new PassThrough() })
    const failure = await terminal.ask(request(question)).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(UserQuestionError)
    expect(failure).toMatchObject({ code: 'PROVIDER_FAILED', details: { reason: 'not-a-tty' } })
    expect((failure as Error).message).toMatch(/interactive terminal.*web console/)
    // Through the seam the caller gets the same code and advice.
    const seam = createUserQuestions()
    seam.registerProvider(terminal)
    await expect(seam.ask({ questions: question })).rejects.toMatchObject({
      code: 'PROVIDER_FAILED',
    })
  })

  it('rejects the open ask when stdin closes mid-question, and every later one at once; the host goes on', async () => {
    const { input, output, shows } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false })
    const pending = terminal.ask(request(question))
    const queued = terminal.ask(request(question))
    await shows('Go ahead?')
    input.end()
    await expect(pending).rejects.toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: 'input-closed' },
    })
    await expect(queued).rejects.toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: 'input-closed' },
    })
    await expect(terminal.ask(request(question))).rejects.toMatchObject({ code: 'ASK_ABORTED' })
    expect(terminal.waiting).toBe(0)
  })

  it('an ask aborted while queued is rejected without ever being shown', async () => {
    const { input, output, shows, screen } = fakeTerminal()
    const terminal = createTerminalProvider({
      input,
      output,
      color: false,
      responder: { id: 'ada', via: 'terminal' },
    })
    const shown = terminal.ask(request(question))
    const controller = new AbortController()
    const waiting = terminal.ask(
      request(
        [{ id: 'later', question: 'Never shown?', options: [{ label: 'A' }] }],
        controller.signal,
      ),
    )
    await shows('Go ahead?')
    const reason = new UserQuestionError('the caller aborted the ask', 'ASK_ABORTED')
    controller.abort(reason)
    await expect(waiting).rejects.toBe(reason)
    expect(terminal.waiting).toBe(1)
    // A one-question batch goes as soon as it is answered: no review screen.
    input.write('2')
    await expect(shown).resolves.toEqual({
      answers: [{ id: 'go', selected: ['No'] }],
      by: { id: 'ada', via: 'terminal' },
    })
    expect(screen()).not.toContain('Never shown?')
    terminal.dispose()
  })

  it('dispose is idempotent and refuses later asks', async () => {
    const { input, output } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output })
    terminal.dispose()
    terminal.dispose()
    await expect(terminal.ask(request(question))).rejects.toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: 'provider-disposed' },
    })
  })
})

describe('colours and model-written text', () => {
  const tty = { isTTY: true, hasColors: () => true }
  it('honours NO_COLOR and FORCE_COLOR, and otherwise asks the terminal', () => {
    expect(supportsColor(tty, {})).toBe(true)
    expect(supportsColor(tty, { NO_COLOR: '1' })).toBe(false)
    expect(supportsColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true)
    expect(supportsColor(tty, { FORCE_COLOR: '0' })).toBe(false)
    expect(supportsColor({ isTTY: false }, {})).toBe(false)
    expect(supportsColor({ isTTY: true, hasColors: () => false }, {})).toBe(false)
    expect(createStyle(false).bold('x')).toBe('x')
    expect(createStyle(true).bold('x')).toBe('\u001b[1mx\u001b[22m')
  })

  it('prints no escape sequence or control character a model wrote, and fits every line to the width', () => {
    const questions: AskUserQuestionItem[] = [
      {
        id: 'evil',
        header: 'Head\u001b[2Jer',
        question: 'Clear \u001b]0;title\u0007the screen?\u0007',
        detail: 'line one\n\u001b[31mred\u001b[0m line two',
        options: [{ label: 'A\u001b[1A\rB', description: `x${'y'.repeat(500)}` }],
      },
    ]
    const actor = createActor(questionnaireMachine, { input: { questions } }).start()
    const frame = renderView({
      context: actor.getSnapshot().context,
      mode: 'answering',
      view: blankView(),
      style: createStyle(false),
      canSubmit: false,
      columns: 40,
      rows: 20,
    })
    const text = frame.lines.join('\n')
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
    expect(text).toContain('Clear the screen?')
    expect(text).toContain('❯ 1. A B')
    expect(frame.lines.every((line) => line.length <= 39)).toBe(true)
    expect(frame.lines.length).toBeLessThanOrEqual(19)
  })
})
