/**
 * The terminal provider in a real pty: queueing, abort, disposal, Ctrl-C, and
 * the bad inputs a human or a model can throw at it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { AskUserQuestionItem } from '../../../src/protocol/index.js'
import { Keys } from '../../support/pty-screen.js'
import type { PtySession } from '../../support/pty-screen.js'
import { resultOf, resultsOf, startFixture } from './fixture.js'
import type { FixtureSpec } from './fixture.js'

const first: AskUserQuestionItem[] = [
  { id: 'first', question: 'First question?', options: [{ label: 'Yes' }, { label: 'No' }] },
]
const second: AskUserQuestionItem[] = [
  { id: 'second', question: 'Second question?', options: [{ label: 'Left' }, { label: 'Right' }] },
]
const name: AskUserQuestionItem[] = [{ id: 'name', header: 'Name', question: 'What is it called?' }]

const sessions: PtySession[] = []
function start(spec: FixtureSpec, size?: { columns?: number; rows?: number }): PtySession {
  const session = startFixture(spec, size)
  sessions.push(session)
  return session
}
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill()
})

/** The last `count` lines of the screen that are not blank (the prompt sits at the bottom). */
function bottomLines(session: PtySession): string[] {
  return session.screenLines().filter((line) => line.trim() !== '')
}

describe('queue and take-down', () => {
  it('shows asks that arrive in the same tick one at a time, in order', async () => {
    const session = start({ asks: [first, second] })
    await session.waitForScreen('First question?')
    expect(session.screen()).not.toContain('Second question?')
    session.type(`1${Keys.enter}`)
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: { answers: [{ id: 'first', selected: ['Yes'] }] },
    })
    await session.waitForScreen('Second question?')
    session.type(`2${Keys.enter}`)
    expect(await resultOf(session, 1)).toMatchObject({
      ok: true,
      answer: { answers: [{ id: 'second', selected: ['Right'] }] },
    })
    await session.waitForOutput('DONE')
    expect((await session.exited).exitCode).toBe(0)
  })

  it('takes a question down at once when its ask aborts while text is being typed, then shows the next', async () => {
    const session = start({ asks: [name, second] })
    await session.waitForScreen('What is it called?')
    session.type('half-typed')
    await session.waitForScreen('half-typed')
    session.kill('SIGUSR2')
    expect(await resultOf(session, 0)).toMatchObject({
      ok: false,
      code: 'ASK_ABORTED',
      reason: 'caller-aborted',
    })
    await session.waitForScreen('Second question?')
    expect(session.screen()).not.toContain('What is it called?')
    session.type(`1${Keys.enter}`)
    // The keys typed into the first question do not leak into the second.
    expect(await resultOf(session, 1)).toEqual({
      ask: 1,
      ok: true,
      answer: { answers: [{ id: 'second', selected: ['Left'] }] },
    })
  })

  it('Ctrl-C (and Ctrl-D) dismiss the batch on screen without killing the host; the next ask still shows', async () => {
    const session = start({ asks: [first, second, name] })
    await session.waitForScreen('First question?')
    session.type(Keys.ctrlC)
    expect(await resultOf(session, 0)).toMatchObject({
      ok: false,
      code: 'ASK_CANCELLED',
      reason: 'dismissed',
    })
    await session.waitForScreen('Second question?')
    expect(session.screen()).toContain('Questions dismissed')
    session.type('\u0004')
    expect(await resultOf(session, 1)).toMatchObject({ ok: false, code: 'ASK_CANCELLED' })
    await session.waitForScreen('What is it called?')
    // A one-question batch goes on Enter: there is no review screen to pass.
    session.type(`Ada${Keys.enter}`)
    expect(await resultOf(session, 2)).toMatchObject({ ok: true })
    expect((await session.exited).exitCode).toBe(0)
  })

  it('disposal takes the question down and rejects what is queued; the host goes on', async () => {
    const session = start({ asks: [first, second] })
    await session.waitForScreen('First question?')
    session.kill('SIGTERM')
    await session.waitForOutput('DONE')
    expect(resultsOf(session).sort((a, b) => a.ask - b.ask)).toEqual([
      { ask: 0, ok: false, code: 'ASK_ABORTED', reason: 'provider-disposed' },
      { ask: 1, ok: false, code: 'ASK_ABORTED', reason: 'provider-disposed' },
    ])
    expect(session.screen()).not.toContain('Second question?')
    expect((await session.exited).exitCode).toBe(0)
  })

  it('a deadline takes the question down and says so', async () => {
    const session = start({ asks: [first], timeoutMs: 1_500 })
    await session.waitForScreen('First question?')
    expect(await resultOf(session, 0)).toMatchObject({ ok: false, code: 'ASK_TIMEOUT' })
    await session.waitForScreen(/Time ran out after \d+ seconds?/)
    expect(session.screen()).not.toContain('First question?')
  })
})

describe('bad input', () => {
  it('ignores keys the flow does not expect', async () => {
    const session = start({ asks: ['deployment'] })
    await session.waitForScreen('Target · 1 of 3')
    // F5, Page Up, Home, Ctrl-X, a letter, a digit with no option, Ctrl-D, a bare space on a single-select.
    session.type('\u001b[15~\u001b[5~\u001b[H\u0018z9 ')
    session.type(Keys.down)
    await session.waitForScreen('❯ 2. us-east-1')
    const screen = session.screen()
    expect(screen).toContain('Target · 1 of 3')
    expect(screen).not.toMatch(/✔ Target/)
    session.type(`${Keys.enter}${Keys.tab}${Keys.tab}`)
    await session.waitForScreen('Review your answers')
    session.type(Keys.enter)
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: {
        answers: [
          { id: 'region', selected: ['us-east-1'] },
          { id: 'checks', selected: [] },
          { id: 'announce', selected: [] },
        ],
      },
    })
  })

  it('refuses to submit while a question is neither answered nor skipped, and says which', async () => {
    const session = start({ asks: ['deployment'] })
    await session.waitForScreen('Target · 1 of 3')
    session.type('1')
    await session.waitForScreen('Safety · 2 of 3')
    session.type(Keys.ctrlS)
    await session.waitForScreen('To submit, answer or skip: Safety, Release notes')
    session.type(Keys.right)
    await session.waitForScreen('Release notes · 3 of 3')
    // In the text field → moves the cursor; Esc leaves the field, then → tries to go on.
    session.type(Keys.escape)
    await session.waitForScreen('enter edit')
    session.type(Keys.right)
    await session.waitForScreen('To submit, answer or skip: Safety, Release notes')
    expect(session.screen()).not.toContain('Review your answers')
    expect(resultsOf(session).sort((a, b) => a.ask - b.ask)).toEqual([])
    session.type(`${Keys.shiftTab}${Keys.tab}`)
    await session.waitForScreen('Release notes · 3 of 3')
    session.type(Keys.tab)
    await session.waitForScreen('Review your answers')
    session.type(Keys.enter)
    expect(await resultOf(session, 0)).toMatchObject({
      ok: true,
      answer: {
        answers: [
          { id: 'region', selected: ['eu-west-1 (Recommended)'] },
          { id: 'checks', selected: [] },
          { id: 'announce', selected: [] },
        ],
      },
    })
  })

  it('refuses an empty or whitespace-only custom answer, and trims a real one', async () => {
    const session = start({ asks: [name] })
    await session.waitForScreen('What is it called?')
    session.type(Keys.enter)
    await session.waitForScreen('Type an answer, or press tab to skip')
    session.type(`   ${Keys.enter}`)
    await session.waitForScreen('Type an answer, or press tab to skip')
    expect(session.screen()).not.toContain('Review your answers')
    // One question: Enter sends it (encodeAnswer trims, as for every UI).
    session.type(`${Keys.ctrlU}  Ada ${Keys.enter}`)
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: { answers: [{ id: 'name', selected: [], custom: 'Ada' }] },
    })
  })

  it('keeps 50 questions with 2,000-character descriptions usable in an 80×24 terminal', async () => {
    const session = start({ asks: ['large'] }, { columns: 80, rows: 24 })
    // The whole frame, down to its key hints: a read in the middle of the first draw would miss them.
    const whole = (progress: string) => (screen: string) =>
      screen.includes(progress) && screen.includes('enter choose')
    await session.waitForScreen(whole('Item 1 · 1 of 50'))
    // The whole prompt fits: the tab bar, the question, the highlighted option and the keys.
    const lines = bottomLines(session)
    expect(lines.some((line) => /\[○ Item 1\]/.test(line))).toBe(true)
    expect(lines.some((line) => line.includes('❯ 1. Option 1.1'))).toBe(true)
    expect(lines.some((line) => line.includes('more'))).toBe(true)
    expect(lines.at(-1)).toContain('enter choose')
    // The twelfth option is reachable and chosen; forty-nine questions are skipped.
    session.type(Keys.down.repeat(11))
    await session.waitForScreen(whole('❯ 12. Option 1.12'))
    expect(bottomLines(session).at(-1)).toContain('enter choose')
    session.type(Keys.enter)
    await session.waitForScreen('Item 2 · 2 of 50')
    session.type(Keys.tab.repeat(49))
    await session.waitForScreen('Review your answers')
    session.type(Keys.enter)
    const result = await resultOf(session, 0)
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.answer.answers).toHaveLength(50)
    expect(result.answer.answers[0]).toEqual({ id: 'q1', selected: ['Option 1.12'] })
    expect(result.answer.answers.slice(1).every((item) => item.selected.length === 0)).toBe(true)
  })

  it('redraws cleanly when the terminal is resized mid-question', async () => {
    const session = start({ asks: ['deployment'] }, { columns: 100, rows: 30 })
    await session.waitForScreen('Target · 1 of 3')
    session.type(Keys.down)
    await session.waitForScreen('❯ 2. us-east-1')
    session.resize(44, 16)
    // The whole frame, down to its key hints: a read in the middle of the redraw would miss them.
    await session.waitForScreen(
      (screen) =>
        screen.includes('❯ 2. us-east-1') &&
        screen.includes('○ Target') &&
        screen.includes('enter choose'),
    )
    const narrow = session.screen()
    // One frame, no stale copies: the progress line appears exactly once, and it all fits.
    expect(narrow.split('Target · 1 of 3').length - 1).toBe(1)
    expect(bottomLines(session).at(-1)).toContain('enter choose')
    session.resize(120, 40)
    await session.waitForScreen((screen) =>
      screen.includes('New market, no existing infrastructure'),
    )
    expect(session.screen().split('Target · 1 of 3').length - 1).toBe(1)
    session.type(`${Keys.enter}${Keys.tab}${Keys.tab}`)
    await session.waitForScreen('Review your answers')
    session.type(Keys.enter)
    expect(await resultOf(session, 0)).toMatchObject({
      ok: true,
      answer: {
        answers: [{ id: 'region', selected: ['us-east-1'] }, { id: 'checks' }, { id: 'announce' }],
      },
    })
  })
})
