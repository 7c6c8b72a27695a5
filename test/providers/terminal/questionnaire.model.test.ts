/**
 * Model-based test of the terminal UI: paths generated from
 * questionnaireMachine (test/support/questionnaire-paths.ts) are replayed as
 * keystrokes into the real provider in a real pty. After every step the
 * screen must show what the model says (question on screen, progress, which
 * questions are settled, the current drafts, whether submit is offered), and
 * every path's ask must settle with the machine's output.
 */
import { afterAll, describe, expect, it } from 'vitest'
import {
  deploymentPlan,
  deploymentQuestions,
  planReviewQuestion,
} from '../../../src/cli/scenario.js'
import type { AskUserQuestionItem } from '../../../src/protocol/index.js'
import { Keys } from '../../support/pty-screen.js'
import type { PtySession } from '../../support/pty-screen.js'
import { createActor } from 'xstate'
import { questionnaireMachine } from '../../../src/machines/questionnaire.machine.js'
import {
  expectationOf,
  questionnaireCoverage,
  questionnairePaths,
} from '../../support/questionnaire-paths.js'
import type {
  QuestionnaireExpectation,
  QuestionnairePath,
} from '../../support/questionnaire-paths.js'
import { resultOf, startFixture } from './fixture.js'

/** The events the terminal offers; it has no key to jump to a question by position. */
const TERMINAL_EVENTS = [
  'option.chosen',
  'option.toggled',
  'custom.typed',
  'question.skipped',
  'question.back',
  'question.next',
  'batch.submitted',
  'batch.cancelled',
  'plan.approved',
  'plan.refused',
  'plan.discussed',
] as const

const planQuestions = [planReviewQuestion(deploymentPlan('eu-west-1', ['Smoke tests']))]

/** What the harness knows of the UI beyond the model: the review overlay and the text row. */
interface UiPosition {
  reviewing: boolean
  inText: boolean
}

function headerOf(questions: readonly AskUserQuestionItem[], index: number): string {
  return questions[index]?.header ?? `Q${index + 1}`
}

/** Where the UI's highlight lands when a question opens (see openingView). */
function opensInText(
  questions: readonly AskUserQuestionItem[],
  expected: QuestionnaireExpectation,
): boolean {
  const question = questions[expected.index]
  const draft = expected.drafts[expected.questionId]
  return (question?.options ?? []).length === 0 || draft?.custom !== undefined
}

/** The lines of the prompt now on screen (earlier output scrolls above it). */
function promptRegion(screen: string, marker: RegExp): string {
  const lines = screen.split('\n')
  let start = -1
  lines.forEach((line, index) => {
    if (marker.test(line)) start = index
  })
  return start < 0 ? '' : lines.slice(start).join('\n')
}

/** Whether the screen shows what the model expects; the reason when it does not. */
function mismatch(
  screen: string,
  questions: readonly AskUserQuestionItem[],
  expected: QuestionnaireExpectation,
  ui: UiPosition,
): string | undefined {
  if (expected.state === 'planReview') {
    const region = promptRegion(screen, /Plan review/)
    if (!region.includes('Approve this deployment plan?')) return 'the plan review is not shown'
    return region.includes('1. Approve') && region.includes('Discuss instead')
      ? undefined
      : 'plan choices missing'
  }
  const region = promptRegion(screen, new RegExp(`[○✔↷] ${headerOf(questions, 0)}[ \\]]`))
  if (region === '') return 'no tab bar'
  for (const [index, question] of questions.entries()) {
    const draft = expected.drafts[question.id]
    const settled = draft !== undefined && (draft.selected.length > 0 || draft.custom !== undefined)
    const mark = draft?.skipped === true ? '↷' : settled ? '✔' : '○'
    // The active tab is bracketed: [✔ Target]; the others are spaced: ' ✔ Target '.
    const tab = new RegExp(`${mark} ${headerOf(questions, index)}[ \\]]`)
    if (!tab.test(region)) {
      return `tab ${headerOf(questions, index)} should be marked ${mark}`
    }
  }
  if (ui.reviewing) {
    if (!region.includes('Review your answers') || !region.includes('Submit answers')) {
      return 'the review is not shown'
    }
    return undefined
  }
  const position = `${headerOf(questions, expected.index)} · ${expected.index + 1} of ${questions.length}`
  if (!region.includes(position)) return `expected "${position}"`
  const question = questions[expected.index]
  const draft = expected.drafts[expected.questionId]
  for (const option of question?.options ?? []) {
    // A skipped question shows no choice, whatever its draft keeps for a later return.
    const chosen = draft?.skipped !== true && draft?.selected.includes(option.label) === true
    if (question?.multiSelect === true) {
      const shown = `${chosen ? '◉' : '◯'} ${option.label}`
      if (!region.includes(shown)) return `expected "${shown}"`
    } else if (region.includes(`${option.label} ✔`) !== chosen) {
      return `"${option.label}" should ${chosen ? '' : 'not '}be marked chosen`
    }
  }
  if (draft?.custom !== undefined && !region.includes(draft.custom))
    return `typed text "${draft.custom}" missing`
  if (/(ctrl\+s|\^s) submit/.test(region) !== expected.canSubmit) {
    return `submit should ${expected.canSubmit ? '' : 'not '}be offered`
  }
  return undefined
}

async function expectScreen(
  session: PtySession,
  questions: readonly AskUserQuestionItem[],
  expected: QuestionnaireExpectation,
  ui: UiPosition,
): Promise<void> {
  try {
    await session.waitForScreen(
      (screen) => mismatch(screen, questions, expected, ui) === undefined,
      10_000,
    )
  } catch (error: unknown) {
    throw new Error(
      `screen does not match the model: ${mismatch(session.screen(), questions, expected, ui)}\n${session.screen()}`,
      { cause: error },
    )
  }
}

/** Whether dismissing now asks "lose your answers?" first: something is chosen or typed. */
function hasAnswers(expected: QuestionnaireExpectation): boolean {
  return Object.values(expected.drafts).some(
    (draft) => draft.selected.length > 0 || (draft.custom ?? '').trim() !== '',
  )
}

/**
 * Whether the terminal offers every step of a path. Tab skips only an open
 * question (on an answered one it moves on, so the choice is never shown
 * skipped), so a path that skips a settled question has no keys here.
 */
function offeredByTerminal(
  questions: readonly AskUserQuestionItem[],
  path: QuestionnairePath,
): boolean {
  const oracle = createActor(questionnaireMachine, { input: { questions: [...questions] } }).start()
  for (const { event } of path.steps) {
    const snapshot = oracle.getSnapshot()
    if (event.type === 'question.skipped' && snapshot.value === 'answering') {
      const question = snapshot.context.questions[snapshot.context.index]
      const draft = snapshot.context.drafts[question?.id ?? '']
      const settled =
        draft !== undefined &&
        !draft.skipped &&
        (draft.selected.length > 0 || (draft.custom ?? '').trim() !== '')
      if (settled) return false
    }
    oracle.send(event)
  }
  return true
}

/** Replays one path through the UI; returns after its ask settled. */
async function replay(
  session: PtySession,
  questions: readonly AskUserQuestionItem[],
  path: QuestionnairePath,
  askIndex: number,
): Promise<void> {
  const last = questions.length - 1
  // The expectations come from the machine itself, stepped with the path's events: under an
  // abstraction a generated path's recorded snapshots can belong to another route to the same
  // abstract state (e.g. skipped where this path chose).
  const oracle = createActor(questionnaireMachine, { input: { questions: [...questions] } }).start()
  let before = expectationOf(oracle.getSnapshot())
  const ui: UiPosition = { reviewing: false, inText: opensInText(questions, before) }
  await expectScreen(session, questions, before, ui)
  let finalOutput = before.output
  for (const { event } of path.steps) {
    oracle.send(event)
    const expected = expectationOf(oracle.getSnapshot())
    finalOutput = expected.output
    const question = questions[before.index]
    const options = question?.options ?? []
    let keys = ''
    if (ui.reviewing && event.type !== 'batch.submitted' && event.type !== 'batch.cancelled') {
      keys += Keys.left
      ui.reviewing = false
      ui.inText = opensInText(questions, before)
    }
    switch (event.type) {
      case 'option.chosen':
      case 'option.toggled': {
        // Up leaves the text field for the option above it; digits then pick.
        if (ui.inText) keys += Keys.up
        keys += String(options.findIndex((option) => option.label === event.label) + 1)
        ui.inText = false
        break
      }
      case 'custom.typed':
        if (!ui.inText) keys += String(options.length + 1)
        keys += `\u0005${Keys.ctrlU}${event.text}`
        ui.inText = true
        break
      case 'question.skipped':
        keys += Keys.tab
        break
      case 'question.back':
        keys += Keys.shiftTab
        break
      case 'question.next':
        if (ui.inText) {
          // In a text field → moves the cursor: Esc leaves the field first (alone: a lone
          // Esc is told from an escape sequence by the pause after it).
          session.type(keys + Keys.escape)
          keys = ''
          await session.waitForScreen(/enter edit/)
          ui.inText = false
        }
        keys += Keys.right
        break
      case 'batch.submitted':
        if (!ui.reviewing) keys += Keys.ctrlS
        if (before.canSubmit) keys += Keys.enter
        break
      case 'batch.cancelled':
        // Ctrl-C dismisses from anywhere; with answers in the batch it asks once first.
        keys += Keys.ctrlC + (hasAnswers(before) ? 'y' : '')
        break
      case 'plan.approved':
        keys += '1'
        break
      case 'plan.refused':
        // The other option's row takes notes: with none typed, Enter answers the option itself.
        keys += `2${event.feedback ?? ''}${Keys.enter}`
        break
      case 'plan.discussed':
        keys += '3'
        break
      default:
        throw new Error(`the terminal offers no key for ${event.type}`)
    }
    session.type(keys)
    if (expected.output !== undefined) break
    // The UI opens the review after the last question is settled, and opens each new question
    // on its current answer.
    const finishesLast =
      before.index === last &&
      expected.index === last &&
      ['option.chosen', 'question.skipped', 'question.next'].includes(event.type)
    if (finishesLast && expected.canSubmit && expected.state === 'answering') ui.reviewing = true
    if (expected.index !== before.index) ui.inText = opensInText(questions, expected)
    await expectScreen(session, questions, expected, ui)
    before = expected
  }
  if (finalOutput === undefined) session.type(Keys.ctrlC + (hasAnswers(before) ? 'y' : ''))
  const result = await resultOf(session, askIndex)
  const output = finalOutput
  if (output === undefined || output.status === 'cancelled') {
    expect(result).toMatchObject({
      ok: false,
      code: 'ASK_CANCELLED',
      reason: output?.reason ?? 'dismissed',
    })
  } else {
    expect(result).toEqual({ ask: askIndex, ok: true, answer: output.answer })
  }
}

const suites = [
  {
    name: 'deployment batch (single, multi, free text)',
    questions: deploymentQuestions,
    paths: questionnairePaths(deploymentQuestions, {
      eventTypes: TERMINAL_EVENTS,
      optionsPerQuestion: 2,
    }).filter((path) => offeredByTerminal(deploymentQuestions, path)),
  },
  {
    name: 'plan review',
    questions: planQuestions,
    // A plan is one decision (approve, the other option, discuss), or Ctrl-C: nothing to skip.
    paths: questionnairePaths(planQuestions, {
      eventTypes: ['plan.approved', 'plan.refused', 'plan.discussed', 'batch.cancelled'],
      algorithm: 'simple',
    }),
  },
]

const covered = new Set<string>()
const total = new Set<string>()
let pathsRun = 0
let stepsRun = 0

afterAll(() => {
  const reached = [...covered].filter((key) => total.has(key))
  const missing = [...total].filter((key) => !covered.has(key))
  console.info(
    `terminal model test: ${pathsRun} paths, ${stepsRun} steps replayed through the pty; ` +
      `transitions covered ${reached.length}/${total.size}` +
      (missing.length > 0 ? ` (not offered by the terminal: ${missing.join(', ')})` : ''),
  )
})

describe.each(suites)('terminal UI follows questionnaireMachine: $name', ({ questions, paths }) => {
  const coverage = questionnaireCoverage(paths)
  coverage.transitions.covered.forEach((key) => covered.add(key))
  coverage.transitions.total.forEach((key) => total.add(key))

  it(
    `replays ${paths.length} generated paths through a real pty`,
    { timeout: 600_000 },
    async () => {
      expect(paths.length).toBeGreaterThan(0)
      const session = startFixture(
        { asks: [questions], repeat: paths.length },
        { columns: 110, rows: 40 },
      )
      try {
        for (const [index, path] of paths.entries()) {
          try {
            await replay(session, questions, path, index)
          } catch (error: unknown) {
            throw new Error(
              `path ${index} (${path.description}) failed: ${error instanceof Error ? error.message : String(error)}`,
              { cause: error },
            )
          }
          pathsRun += 1
          stepsRun += path.steps.length
        }
        await session.waitForOutput('DONE')
      } finally {
        session.kill()
      }
    },
  )
})
