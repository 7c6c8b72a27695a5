/**
 * Who answers at the terminal (DESIGN §12), over in-memory streams that pose
 * as a TTY: every answer says who gave it, an ask the responder may not
 * answer is a line and never a prompt, and an approval's count is shown
 * before and after it is given.
 */
import { userInfo } from 'node:os'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { UserQuestionError } from '../../../src/protocol/index.js'
import type {
  AskUserQuestionItem,
  ProviderRequest,
  ProviderSettlement,
} from '../../../src/protocol/index.js'
import { createTerminalProvider } from '../../../src/providers/terminal/index.js'
import type { Responder } from '../../../src/vocabulary/index.js'

const question: AskUserQuestionItem[] = [
  { id: 'go', question: 'Go ahead?', options: [{ label: 'Yes' }, { label: 'No' }] },
]
const plan: AskUserQuestionItem[] = [
  {
    id: 'plan',
    header: 'Plan review',
    question: 'Approve this plan?',
    detail: '1. Build\n2. Deploy',
    options: [{ label: 'Approve' }, { label: 'Revise' }],
    intent: { kind: 'plan-review', approve: 'Approve' },
  },
]
const ada: Responder = { id: 'ada', via: 'terminal', roles: ['reviewer'] }
const alice: Responder = { id: 'alice', name: 'Alice', via: 'web' }

function fakeTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input })
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 })
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
  extra: Partial<ProviderRequest> = {},
): ProviderRequest {
  return { askId: 'ask-1', questions, signal: new AbortController().signal, ...extra }
}

/** A settlement the test tells when it likes. */
function settlement() {
  let tell!: (verdict: ProviderSettlement) => void
  const promise = new Promise<ProviderSettlement>((resolve) => (tell = resolve))
  return { promise, tell }
}

describe('who answers at the terminal', () => {
  it('says who answered: the OS user by default, via the terminal', async () => {
    const { input, output, shows } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false })
    const answer = terminal.ask(request(question))
    await shows('Go ahead?')
    input.write('1')
    await expect(answer).resolves.toEqual({
      answers: [{ id: 'go', selected: ['Yes'] }],
      by: { id: userInfo().username, via: 'terminal' },
    })
    terminal.dispose()
  })

  it('says who answered as the host names them with `responder`', async () => {
    const { input, output, shows } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false, responder: ada })
    const answer = terminal.ask(request(question, { answerers: ['role:reviewer'] }))
    await shows('Go ahead?')
    input.write('2')
    await expect(answer).resolves.toMatchObject({ by: ada })
    terminal.dispose()
  })

  it('never prompts for an ask whose answerers leave the responder out: one line, keys answer nothing, it ends elsewhere', async () => {
    const { input, output, shows, screen } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false, responder: ada })
    const controller = new AbortController()
    const answer = terminal.ask(
      request(question, { answerers: ['alice', 'role:ops'], signal: controller.signal }),
    )
    let settled = false
    void answer.catch(() => undefined).finally(() => (settled = true))
    await shows('“Go ahead?” waits for alice, role:ops to answer; ada may not answer it here')
    input.write('1\r')
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toBe(false)
    expect(screen()).not.toContain('❯')
    expect(terminal.waiting).toBe(0)
    const reason = new UserQuestionError('answered elsewhere', 'ASK_ABORTED', {
      details: { reason: 'settled-elsewhere' },
    })
    controller.abort(reason)
    await expect(answer).rejects.toBe(reason)
    terminal.dispose()
  })

  it('lets the next ask through while one waits for someone else, and disposal ends the waiting one', async () => {
    const { input, output, shows } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false, responder: ada })
    const elsewhere = terminal.ask(request(plan, { answerers: ['alice'] }))
    const mine = terminal.ask(request(question))
    await shows('Go ahead?')
    input.write('1')
    await expect(mine).resolves.toMatchObject({ answers: [{ id: 'go', selected: ['Yes'] }] })
    terminal.dispose()
    await expect(elsewhere).rejects.toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: 'provider-disposed' },
    })
  })

  it('shows the approvals so far above a plan review, and says when an approval is counted', async () => {
    const { input, output, shows } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false, responder: ada })
    const verdict = settlement()
    const answer = terminal.ask(
      request(plan, {
        approvals: { required: 3, given: [alice] },
        settlement: verdict.promise,
      }),
    )
    await shows('1 of 3 approvals: Alice')
    input.write('\r')
    await expect(answer).resolves.toEqual({
      answers: [{ id: 'plan', selected: ['Approve'] }],
      by: ada,
    })
    verdict.tell({ status: 'counted', approvals: { required: 3, given: [alice, ada] } })
    await shows('your approval is counted (2 of 3)')
    terminal.dispose()
  })

  it('says so when an approval was refused as already given', async () => {
    const { input, output, shows } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false, responder: ada })
    const verdict = settlement()
    const answer = terminal.ask(
      request(plan, { approvals: { required: 2, given: [] }, settlement: verdict.promise }),
    )
    await shows('0 of 2 approvals')
    input.write('\r')
    await answer
    verdict.tell({
      status: 'refused',
      error: new UserQuestionError('this responder has approved already', 'BAD_ANSWER', {
        details: { reason: 'already-voted' },
      }),
    })
    await shows('you approved this already: your answer was not counted again')
    terminal.dispose()
  })

  it('holds a line said while a prompt is up until the prompt ends', async () => {
    const { input, output, shows, screen } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false, responder: ada })
    const mine = terminal.ask(request(question))
    await shows('Go ahead?')
    void terminal.ask(request(plan, { answerers: ['alice'] })).catch(() => undefined)
    await new Promise((resolve) => setImmediate(resolve))
    expect(screen()).not.toContain('waits for alice')
    input.write('1')
    await mine
    await shows('“Plan review” waits for alice to answer')
    terminal.dispose()
  })

  it('shows an ask the responder approved already as waiting for the others, not as a prompt', async () => {
    const { input, output, shows, screen } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false, responder: ada })
    const answer = terminal.ask(request(plan, { approvals: { required: 2, given: [ada] } }))
    void answer.catch(() => undefined)
    await shows('your approval is counted (1 of 2 approvals: ada); waiting for the others')
    expect(screen()).not.toContain('Approve this plan?')
    terminal.dispose()
    await expect(answer).rejects.toMatchObject({ code: 'ASK_ABORTED' })
  })
})
