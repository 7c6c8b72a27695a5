import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { deploymentPlan, deploymentQuestions, planReviewQuestion } from '../../src/cli/scenario.js'
import { createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestionError,
} from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import type { WebConsole } from '../../src/providers/web/index.js'
import { createActor } from 'xstate'
import type { QuestionnaireEvent } from '../../src/machines/questionnaire.machine.js'
import {
  expectationOf,
  questionnaireLogic,
  questionnairePaths,
} from '../support/questionnaire-paths.js'
import type {
  QuestionnaireExpectation,
  QuestionnairePath,
  QuestionnairePathOptions,
} from '../support/questionnaire-paths.js'
import { perform, readScreen, useChromium } from './web-console-harness.js'

/**
 * Paths generated from questionnaireMachine, replayed through the console
 * page in Chromium: after every step the page must show what the machine
 * says (screen, question, progress of every question, choices and text of
 * the current one, whether Submit is allowed), and the caller must get the
 * machine's output through the relay.
 */

/**
 * The events of each generated path, with what the page must show after each
 * one taken from replaying those very events through the machine (so the
 * check does not depend on how the generator abstracts states). A path stops
 * where the flow ends: after that the ask has left the page.
 */
function cases(
  questions: AskUserQuestionItem[],
  paths: QuestionnairePath[],
): { name: string; steps: { event: QuestionnaireEvent; expected: QuestionnaireExpectation }[] }[] {
  const seen = new Map<
    string,
    { event: QuestionnaireEvent; expected: QuestionnaireExpectation }[]
  >()
  for (const path of paths) {
    const actor = createActor(questionnaireLogic(), { input: { questions } }).start()
    const steps: { event: QuestionnaireEvent; expected: QuestionnaireExpectation }[] = []
    for (const { event } of path.steps) {
      if (actor.getSnapshot().status !== 'active') break
      actor.send(event)
      steps.push({ event, expected: expectationOf(actor.getSnapshot()) })
    }
    const name = steps.map((step) => JSON.stringify(step.event)).join(' → ') || '(initial)'
    if (!seen.has(name)) seen.set(name, steps)
  }
  return [...seen].map(([name, steps]) => ({ name, steps }))
}

const STEP_LABEL = { open: 'not answered', answered: 'answered', skipped: 'skipped' } as const

async function expectScreen(
  page: Page,
  questions: AskUserQuestionItem[],
  expected: QuestionnaireExpectation,
): Promise<void> {
  const screen = await readScreen(page)
  expect(screen.state).toBe(expected.state)
  if (expected.state !== 'answering') return
  expect(screen.index).toBe(expected.index)
  if (questions.length > 1) {
    expect(screen.steps).toEqual(
      questions.map(({ id }) => {
        const draft = expected.drafts[id]!
        if (draft.skipped) return STEP_LABEL.skipped
        return draft.selected.length > 0 || draft.custom !== undefined
          ? STEP_LABEL.answered
          : STEP_LABEL.open
      }),
    )
  }
  const draft = expected.drafts[expected.questionId]!
  expect(screen.checked).toEqual(draft.selected)
  expect(screen.custom).toBe(draft.custom ?? '')
  expect(screen.canSubmit).toBe(expected.canSubmit)
}

const requests: {
  name: string
  questions: AskUserQuestionItem[]
  options: QuestionnairePathOptions
}[] = [
  { name: 'deployment batch', questions: deploymentQuestions, options: { optionsPerQuestion: 2 } },
  {
    // Every way of answering each question (choice, text, both, skip), not only progress.
    name: 'two questions, by kind of answer',
    questions: [
      {
        id: 'db',
        question: 'Which database?',
        options: [{ label: 'Postgres' }, { label: 'SQLite' }],
      },
      {
        id: 'extras',
        question: 'Which extras?',
        multiSelect: true,
        options: [{ label: 'Cache' }, { label: 'Queue' }],
      },
    ],
    options: { abstraction: 'answer-kind', optionsPerQuestion: 1 },
  },
  {
    name: 'plan review',
    questions: [planReviewQuestion(deploymentPlan('eu-west-1', ['Smoke tests']))],
    // The card offers one decision: approve, the other option, or discuss (no skip, no dismiss).
    options: {
      algorithm: 'simple',
      eventTypes: ['plan.approved', 'plan.refused', 'plan.discussed'],
    },
  },
]

const browser = useChromium()
let web: WebConsole
let page: Page
const seam = createUserQuestions({ timeoutMs: 60_000 })

// One console and one page for every case of the file, so not the session's per-test ones.
beforeAll(async () => {
  if (!browser.installed) return
  web = await startWebConsole({ seam })
  page = await browser.context.newPage()
  await page.goto(web.url)
})

afterAll(async () => {
  await web?.close()
})

for (const request of requests) {
  const paths = questionnairePaths(request.questions, request.options)
  describe(`questionnaire paths through the console: ${request.name}`, () => {
    it('has paths to every end the machine can reach', () => {
      const ends = new Set(paths.map((path) => path.final.state))
      expect(ends.has('submitted') && ends.has('cancelled')).toBe(true)
    })

    for (const { name, steps } of cases(request.questions, paths)) {
      it(name, async () => {
        await page.getByRole('heading', { name: 'Nothing to answer right now' }).waitFor()
        const controller = new AbortController()
        const outcome = seam.ask({ questions: request.questions, signal: controller.signal }).then(
          (answer): { answer: AskUserQuestionAnswer } => ({ answer }),
          (error: unknown) => ({ error: error as UserQuestionError }),
        )
        try {
          await page.locator('.stage .card').waitFor()
          const initial = createActor(questionnaireLogic(), { input: request }).start()
          await expectScreen(page, request.questions, expectationOf(initial.getSnapshot()))
          for (const step of steps) {
            await perform(page, step.event)
            if (step.expected.output === undefined) {
              await expectScreen(page, request.questions, step.expected)
            }
          }
          const output = steps.at(-1)?.expected.output
          if (output === undefined) {
            // The path ends mid-flow: dismiss it so the next case starts from an empty console
            // (a plan review offers no dismissal: its quiet way out is to discuss).
            const onPlan = (await readScreen(page)).state === 'planReview'
            await perform(page, { type: onPlan ? 'plan.discussed' : 'batch.cancelled' })
            expect(await outcome).toMatchObject({ error: { code: 'ASK_CANCELLED' } })
          } else if (output.status === 'submitted') {
            expect(await outcome).toEqual({ answer: output.answer })
          } else {
            expect(await outcome).toMatchObject({
              error: { code: 'ASK_CANCELLED', details: { reason: output.reason } },
            })
          }
        } finally {
          // A failed case must not leave its question on the page for the next one.
          controller.abort()
        }
      })
    }
  })
}
