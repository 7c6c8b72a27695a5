/**
 * The terminal's key behaviours in a real pseudo-terminal (the fixture host
 * with the real provider; the screen read from a headless xterm): editing in
 * the middle of a typed word, bracketed paste into one-line and multi-line
 * fields, Esc in a field, the dismiss confirmation, Tab on an answered
 * question, a one-question batch, the countdown, NO_COLOR and 40 columns.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { AskUserQuestionItem } from '../../../src/protocol/index.js'
import { Keys } from '../../support/pty-screen.js'
import type { PtySession } from '../../support/pty-screen.js'
import { resultOf, resultsOf, startFixture } from './fixture.js'

const paste = (text: string) => `\u001b[200~${text}\u001b[201~`
const home = '\u001b[H'
const end = '\u001b[F'

const name: AskUserQuestionItem[] = [{ id: 'name', question: 'What should the service be called?' }]
const region: AskUserQuestionItem[] = [
  {
    id: 'region',
    header: 'Region',
    question: 'Which region?',
    options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
  },
]
const two: AskUserQuestionItem[] = [
  ...region,
  { id: 'notes', header: 'Notes', question: 'Anything else?' },
]

const sessions: PtySession[] = []
function start(...args: Parameters<typeof startFixture>): PtySession {
  const session = startFixture(...args)
  sessions.push(session)
  return session
}
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill()
})

/**
 * Waits for a whole frame: `first` drawn and, below it, the hint line that
 * closes every frame (a screen read after the first marker alone may be
 * half drawn).
 */
function frame(session: PtySession, first: string, hint: RegExp): Promise<string> {
  return session.waitForScreen((screen) => hint.test(below(screen, first)))
}

/** The prompt's own lines: from the last line that matches `marker` down. */
function below(screen: string, marker: string): string {
  const lines = screen.split('\n')
  const at = lines.findLastIndex((line) => line.includes(marker))
  return at < 0 ? '' : lines.slice(at).join('\n')
}

describe('terminal keys, in a real pty', { timeout: 60_000 }, () => {
  it('moves the cursor and edits in the middle of a typed word', async () => {
    const session = start({ asks: [name] })
    await session.waitForScreen('Answer:')
    session.type('helo')
    session.type(`${Keys.left}l`)
    await session.waitForScreen('Answer: hello')
    session.type(`${home}X${end}!`)
    await session.waitForScreen('Answer: Xhello!')
    // Back three, delete the character before the cursor: "Xhel|lo!" → "Xhe|lo!".
    session.type(`${Keys.left}${Keys.left}${Keys.left}${Keys.backspace}`)
    await session.waitForScreen('Answer: Xhelo!')
    session.type(`\u0004${Keys.enter}`) // Ctrl-D deletes the character under the cursor
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: { answers: [{ id: 'name', selected: [], custom: 'Xheo!' }] },
    })
  })

  it('a multi-line paste into a one-line field keeps all the text, as spaces, and submits nothing', async () => {
    const session = start({ asks: [region] })
    await session.waitForScreen('Which region?')
    session.type('3')
    await session.waitForScreen('enter confirm')
    session.type(paste('first line\r\nsecond line\rthird\n'))
    await session.waitForScreen('Other: first line second line third')
    expect(resultsOf(session)).toEqual([])
    expect(session.screen()).not.toContain('Review your answers')
    session.type(Keys.enter)
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: { answers: [{ id: 'region', selected: [], custom: 'first line second line third' }] },
    })
  })

  it('a multi-line paste into the plan feedback keeps its lines, and Enter inside it sends nothing', async () => {
    const session = start({ asks: ['plan'] })
    await session.waitForScreen('Discuss instead')
    session.type('2')
    await session.waitForScreen('enter send')
    session.type(paste('Use two regions\r\nand a canary\r\n\r\nthen ship'))
    await session.waitForScreen(
      (screen) => screen.includes('and a canary') && screen.includes('then ship'),
    )
    expect(resultsOf(session)).toEqual([])
    session.type(Keys.enter)
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: {
        answers: [
          { id: 'plan', selected: [], custom: 'Use two regions\nand a canary\n\nthen ship' },
        ],
      },
    })
  })

  it('page down and page up scroll a plan longer than the screen', async () => {
    const detail = `# Long plan\n\n${Array.from({ length: 40 }, (_, i) => `${i + 1}. Step ${i + 1}`).join('\n')}`
    const plan: AskUserQuestionItem[] = [
      {
        id: 'plan',
        question: 'Approve this long plan?',
        detail,
        options: [{ label: 'Approve' }, { label: 'Revise' }],
        intent: { kind: 'plan-review', approve: 'Approve' },
      },
    ]
    const session = start({ asks: [plan] }, { columns: 80, rows: 24 })
    await session.waitForScreen('more lines (pgdn)')
    expect(session.screen()).not.toContain('40. Step 40')
    session.type('\u001b[6~'.repeat(10))
    // The whole screen after the last key: each key redraws it.
    await session.waitForScreen(
      (screen) => screen.includes('40. Step 40') && screen.includes('lines above (pgup)'),
    )
    session.type('\u001b[5~'.repeat(10))
    await session.waitForScreen(
      (screen) => screen.includes('Long plan') && !screen.includes('above (pgup)'),
    )
    expect(resultsOf(session)).toEqual([])
    session.type('1')
    expect(await resultOf(session, 0)).toMatchObject({ ok: true })
  })

  it('Esc in a field leaves the field and keeps the text; dismissing then asks once', async () => {
    const session = start({ asks: [two] })
    await session.waitForScreen('Which region?')
    session.type('3draft')
    await session.waitForScreen('Other: draft')
    session.type(Keys.escape)
    await session.waitForScreen('enter edit')
    expect(below(session.screen(), 'Region')).toContain('Other: draft ✔')
    expect(resultsOf(session)).toEqual([])
    session.type(Keys.escape)
    await session.waitForScreen('Dismiss the questions and lose the answer? (y/n)')
    session.type('n')
    await session.waitForScreen(
      (screen) => !screen.includes('(y/n)') && screen.includes('esc dismiss'),
    )
    expect(resultsOf(session)).toEqual([])
    session.type(Keys.ctrlC)
    await session.waitForScreen('(y/n)')
    session.type('y')
    expect(await resultOf(session, 0)).toMatchObject({
      ok: false,
      code: 'ASK_CANCELLED',
      reason: 'dismissed',
    })
  })

  it('dismisses at once when nothing is answered yet', async () => {
    const session = start({ asks: [two] })
    await session.waitForScreen('Which region?')
    session.type(Keys.escape)
    expect(await resultOf(session, 0)).toMatchObject({ ok: false, code: 'ASK_CANCELLED' })
  })

  it('Tab on an answered question moves on and never shows it skipped', async () => {
    const session = start({ asks: [two] })
    await session.waitForScreen('Which region?')
    session.type('1')
    await session.waitForScreen('[○ Notes]')
    session.type(Keys.shiftTab)
    // The whole frame, down to its key hints, before it is read.
    await session.waitForScreen(
      (screen) => screen.includes('[✔ Region]') && screen.includes('tab next'),
    )
    expect(session.screen()).toContain('eu-west-1 ✔')
    expect(session.screen()).toContain('tab next')
    session.type(Keys.tab)
    await session.waitForScreen('[○ Notes]')
    expect(session.screen()).toContain(' ✔ Region ')
    expect(session.screen()).not.toContain('↷ Region')
    session.type(`ok${Keys.enter}`)
    await session.waitForScreen('Review your answers')
    session.type(Keys.enter)
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: {
        answers: [
          { id: 'region', selected: ['eu-west-1'] },
          { id: 'notes', selected: [], custom: 'ok' },
        ],
      },
    })
  })

  it('a one-question batch goes as soon as it is answered, without a review screen', async () => {
    const session = start({ asks: [region] })
    await session.waitForScreen('Which region?')
    session.type('2')
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: { answers: [{ id: 'region', selected: ['us-east-1'] }] },
    })
    expect(session.transcript()).not.toContain('Review your answers')
  })

  it('shows the time left, then a warning in the last tenth, then why the batch went', async () => {
    const session = start({ asks: [name], timeoutMs: 12_000 })
    await session.waitForScreen(/⏱ 0:1\d left to answer/)
    session.type('half a thou')
    await session.waitForScreen(/⚠ 0:0[01] left to answer/, 15_000)
    expect(await resultOf(session, 0)).toMatchObject({ ok: false, code: 'ASK_TIMEOUT' })
    const screen = await session.waitForScreen('Time ran out after 12 seconds')
    expect(screen).toContain('You had typed (not sent): “half a thou”')
  })

  it('with NO_COLOR the active tab is bracketed and nothing is coloured', async () => {
    const session = start({ asks: ['deployment'] }, {}, { NO_COLOR: '1' })
    await session.waitForScreen('[○ Target]')
    session.type('1')
    await session.waitForScreen('[○ Safety]')
    expect(session.screen()).toContain(' ✔ Target ')
    // eslint-disable-next-line no-control-regex
    expect(session.raw()).not.toMatch(/\u001b\[[0-9;]*m/)
  })

  it('at 40 columns every line fits and the hint line keeps "esc dismiss"', async () => {
    const session = start({ asks: ['deployment'] }, { columns: 40, rows: 24 })
    // The whole frame: under load a read can land between the question and the hint line below it.
    const screen = await session.waitForScreen(
      (text) => text.includes('Which region') && /esc dismiss/.test(below(text, 'Target')),
    )
    for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(40)
    session.type('4')
    await session.waitForScreen((text) => /enter confirm/.test(text) && /esc leave/.test(text))
  })

  it('at 40 columns the review shows a custom answer whole, wrapped between words', async () => {
    const session = start({ asks: [two] }, { columns: 40, rows: 24 })
    await frame(session, 'Region', /esc dismiss/)
    session.type(`3eu-central-1 please, with a canary first${Keys.enter}`)
    await frame(session, 'Anything else?', /enter confirm/)
    session.type(`Ship it on Thursday morning${Keys.enter}`)
    const screen = await frame(session, 'Review your answers', /esc dismiss/)
    for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(40)
    const summary = below(screen, 'Review your answers')
    // Every word arrives whole: joined back, the lines read the answers as typed.
    const words = summary.split(/\s+/)
    for (const word of ['“eu-central-1', 'please,', 'canary', 'first”', 'Thursday', 'morning”']) {
      expect(words).toContain(word)
    }
    const joined = summary.replace(/\s+/g, ' ')
    expect(joined).toContain('“eu-central-1 please, with a canary first”')
    expect(joined).toContain('“Ship it on Thursday morning”')
    expect(summary).not.toContain('…')
    session.type(Keys.enter)
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: {
        answers: [
          { id: 'region', selected: [], custom: 'eu-central-1 please, with a canary first' },
          { id: 'notes', selected: [], custom: 'Ship it on Thursday morning' },
        ],
      },
    })
  })

  it('a plan with only an approve option sends it back with notes, which it then needs', async () => {
    const approveOnly: AskUserQuestionItem[] = [
      {
        id: 'plan',
        question: 'Approve this plan?',
        detail: '1. Build\n2. Ship',
        options: [{ label: 'Approve' }],
        intent: { kind: 'plan-review', approve: 'Approve' },
      },
    ]
    const session = start({ asks: [approveOnly] }, { columns: 80, rows: 30 })
    const screen = await frame(session, 'Approve this plan?', /esc dismiss/)
    expect(below(screen, '1. Approve')).toMatch(/2\. Send back: tell the agent what to change/)
    session.type(`2${Keys.enter}`)
    await session.waitForScreen('Type what should change, or pick another choice')
    session.type(`Canary first${Keys.enter}`)
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: { answers: [{ id: 'plan', selected: [], custom: 'Canary first' }] },
    })
  })

  it('a plan offers one decision: approve, the other option by its label with notes, or discuss', async () => {
    const session = start({ asks: ['plan'], repeat: 4 }, { columns: 80, rows: 40 })
    // The next plan's whole frame, drawn after the result of the one before.
    const nextPlan = (after: number) =>
      session.waitForOutput(new RegExp(`RESULT \\{"ask":${after},[^\\n]*\\n[\\s\\S]*esc dismiss`))
    const screen = await frame(session, 'Approve this deployment plan?', /esc dismiss/)
    // The choices: from the approve row down (the plan above has numbered steps of its own).
    const choices = below(screen, '1. Approve')
    expect(choices).toMatch(/2\. Revise: add notes \(optional\)/)
    expect(choices).toMatch(/3\. Discuss instead/)
    expect(choices).not.toMatch(/4\.|Revise with notes|tab skip/)
    // Tab skips nothing on a plan: the decision is still on screen.
    session.type(`${Keys.tab}2${Keys.enter}`)
    expect(await resultOf(session, 0)).toEqual({
      ask: 0,
      ok: true,
      answer: { answers: [{ id: 'plan', selected: ['Revise'] }] },
    })
    await nextPlan(0)
    session.type(`2Canary first${Keys.enter}`)
    expect(await resultOf(session, 1)).toEqual({
      ask: 1,
      ok: true,
      answer: { answers: [{ id: 'plan', selected: [], custom: 'Canary first' }] },
    })
    await nextPlan(1)
    session.type('3')
    expect(await resultOf(session, 2)).toMatchObject({
      ok: false,
      code: 'ASK_CANCELLED',
      reason: 'discuss',
    })
    await nextPlan(2)
    session.type('1')
    expect(await resultOf(session, 3)).toEqual({
      ask: 3,
      ok: true,
      answer: { answers: [{ id: 'plan', selected: ['Approve'] }] },
    })
  })
})
