/**
 * Model-based tests of the questionnaire as a UI consumes it: an actor plus the
 * snapshot helpers. The model is an independent reference written here (a
 * small reducer, not the machine), walked with `xstate/graph`'s `TestModel`;
 * every path drives a real `questionnaireMachine` actor and checks, after each
 * step, what a UI would render and, at the end, the exact output.
 */
import { describe, expect, it } from 'vitest'
import { createActor, fromTransition } from 'xstate'
import type { Actor } from 'xstate'
import { TestModel } from 'xstate/graph'
import {
  canSubmit,
  currentQuestion,
  isQuestionAnswered,
  questionnaireMachine,
} from '../../src/machines/questionnaire.machine.js'
import type {
  QuestionnaireEvent,
  QuestionnaireOutput,
} from '../../src/machines/questionnaire.machine.js'
import { validateAnswer } from '../../src/protocol/index.js'
import type { AskUserQuestionAnswerItem, AskUserQuestionItem } from '../../src/protocol/index.js'
import { deploymentQuestions, planReviewQuestion } from '../../src/cli/scenario.js'
import {
  questionnaireCoverage,
  questionnairePaths,
  questionnaireTransitions,
} from '../support/questionnaire-paths.js'

/** What the reference remembers of one question. */
interface ModelQuestion {
  chosen: boolean
  typed: boolean
  skipped: boolean
}

interface ModelState {
  phase: 'answering' | 'submitted' | 'cancelled'
  index: number
  answers: ModelQuestion[]
}

const TYPED = 'typed in the model test'

/** The reference: the rules of DESIGN §6 for the generic flow, written from scratch. */
function referenceModel(questions: AskUserQuestionItem[]) {
  const last = questions.length - 1
  const settled = (answer: ModelQuestion) => answer.skipped || answer.chosen || answer.typed
  return fromTransition(
    (state: ModelState, event: QuestionnaireEvent): ModelState => {
      if (state.phase !== 'answering') return state
      const question = questions[state.index] as AskUserQuestionItem
      const multi = question.multiSelect === true
      const answer = state.answers[state.index] as ModelQuestion
      const replace = (next: ModelQuestion, index = state.index) => ({
        ...state,
        index,
        answers: state.answers.map((old, at) => (at === state.index ? next : old)),
      })
      switch (event.type) {
        case 'option.chosen':
          return multi
            ? state
            : replace(
                { chosen: true, typed: false, skipped: false },
                Math.min(state.index + 1, last),
              )
        case 'option.toggled':
          return multi ? replace({ ...answer, chosen: !answer.chosen, skipped: false }) : state
        case 'custom.typed':
          return replace({ chosen: multi && answer.chosen, typed: true, skipped: false })
        case 'question.skipped':
          return replace({ ...answer, skipped: true }, Math.min(state.index + 1, last))
        case 'question.back':
          return { ...state, index: Math.max(state.index - 1, 0) }
        case 'question.next':
          return { ...state, index: Math.min(state.index + 1, last) }
        case 'batch.submitted':
          return state.answers.every(settled) ? { ...state, phase: 'submitted' } : state
        case 'batch.cancelled':
          return { ...state, phase: 'cancelled' }
        default:
          return state
      }
    },
    {
      phase: 'answering',
      index: 0,
      answers: questions.map(() => ({ chosen: false, typed: false, skipped: false })),
    },
  )
}

/** The first label of a question: the one the model's choose/toggle events use. */
function firstLabel(question: AskUserQuestionItem): string | undefined {
  return question.options?.[0]?.label
}

function expectedOutput(questions: AskUserQuestionItem[], state: ModelState): QuestionnaireOutput {
  if (state.phase === 'cancelled') return { status: 'cancelled', reason: 'dismissed' }
  const answers = questions.map((question, index): AskUserQuestionAnswerItem => {
    const answer = state.answers[index] as ModelQuestion
    const label = firstLabel(question)
    if (answer.skipped) return { id: question.id, selected: [] }
    const selected = answer.chosen && label !== undefined ? [label] : []
    return answer.typed
      ? { id: question.id, selected, custom: TYPED }
      : { id: question.id, selected }
  })
  return { status: 'submitted', answer: { answers } }
}

function modelEvents(questions: AskUserQuestionItem[]) {
  return (snapshot: { context: ModelState }): QuestionnaireEvent[] => {
    const question = questions[snapshot.context.index] as AskUserQuestionItem
    const label = firstLabel(question)
    const choose: QuestionnaireEvent[] =
      label === undefined
        ? []
        : [
            question.multiSelect === true
              ? { type: 'option.toggled', label }
              : { type: 'option.chosen', label },
          ]
    return [
      ...choose,
      { type: 'custom.typed', text: TYPED },
      { type: 'question.skipped' },
      { type: 'question.back' },
      { type: 'question.next' },
      { type: 'batch.submitted' },
      { type: 'batch.cancelled' },
    ]
  }
}

function runModel(questions: AskUserQuestionItem[], algorithm: 'shortest' | 'simple') {
  const model = new TestModel(referenceModel(questions), {
    events: modelEvents(questions),
    serializeState: (snapshot) => JSON.stringify(snapshot.context),
  })
  return algorithm === 'shortest' ? model.getShortestPaths() : model.getSimplePaths()
}

async function replay(
  questions: AskUserQuestionItem[],
  path: ReturnType<typeof runModel>[number],
): Promise<void> {
  const actor: Actor<typeof questionnaireMachine> = createActor(questionnaireMachine, {
    input: { questions },
  }).start()
  const ui = () => actor
  // TestModel types each step's event by its type alone; the payload is there at run time.
  const send = ({ event }: { event: { type: string } }) => ui().send(event as QuestionnaireEvent)
  await path.test({
    events: {
      'option.chosen': send,
      'option.toggled': send,
      'custom.typed': send,
      'question.skipped': send,
      'question.back': send,
      'question.next': send,
      'batch.submitted': send,
      'batch.cancelled': send,
    },
    states: {
      '*': (snapshot) => {
        const state = snapshot.context as ModelState
        const real = ui().getSnapshot()
        expect(real.value).toBe(state.phase)
        expect(real.context.index).toBe(state.index)
        expect(currentQuestion(real.context).id).toBe(questions[state.index]?.id)
        questions.forEach((question, index) => {
          const answer = state.answers[index] as ModelQuestion
          expect(isQuestionAnswered(real.context, question.id)).toBe(
            answer.skipped || answer.chosen || answer.typed,
          )
        })
        if (state.phase === 'answering') {
          expect(canSubmit(real.context)).toBe(
            state.answers.every((a) => a.skipped || a.chosen || a.typed),
          )
        } else {
          const output = real.output
          expect(output).toEqual(expectedOutput(questions, state))
          if (output?.status === 'submitted') {
            expect(validateAnswer(questions, output.answer)).toEqual(output.answer)
          }
        }
      },
    },
  })
}

describe('questionnaireMachine against a reference model', () => {
  const shortest = runModel(deploymentQuestions, 'shortest')
  it(`reaches every model state of the demo batch (${shortest.length} shortest paths)`, async () => {
    expect(shortest.length).toBeGreaterThan(100)
    for (const path of shortest) await replay(deploymentQuestions, path)
  })

  // Simple paths grow exponentially with the states, so they walk one question at a time.
  it.each(deploymentQuestions.map((question) => [question.id, question] as const))(
    'follows every simple path of the %s question alone',
    async (_id, question) => {
      const simple = runModel([question], 'simple')
      expect(simple.length).toBeGreaterThan(10)
      for (const path of simple) await replay([question], path)
    },
  )
})

describe('the questionnaire path generator for the UIs', () => {
  const plan = planReviewQuestion('1. build\n2. ship')
  const requests: [string, AskUserQuestionItem[], Parameters<typeof questionnairePaths>[1]][] = [
    ['demo batch, shortest', deploymentQuestions, {}],
    ['demo batch, answer kinds', deploymentQuestions, { abstraction: 'answer-kind' }],
    ['plan review, shortest', [plan], {}],
    ['plan review, simple', [plan], { algorithm: 'simple' }],
    ['plan review in the generic flow, simple', [plan], { algorithm: 'simple', genericFlow: true }],
    [
      'lone-approve plan review, simple',
      [{ ...plan, options: [{ label: 'Approve' }] }],
      { algorithm: 'simple' },
    ],
  ]

  it.each(requests)('%s: each step replays to its expectation', (_name, questions, options) => {
    const paths = questionnairePaths(questions, options)
    expect(paths.length).toBeGreaterThan(1)
    for (const path of paths) {
      const actor = createActor(
        options?.genericFlow === true
          ? questionnaireMachine.provide({ guards: { qualifiesForPlanReview: () => false } })
          : questionnaireMachine,
        { input: { questions } },
      ).start()
      expect(actor.getSnapshot().context.index).toBe(path.initial.index)
      for (const step of path.steps) {
        actor.send(step.event)
        const snapshot = actor.getSnapshot()
        expect(snapshot.value).toBe(step.expected.state)
        expect(snapshot.context.drafts).toEqual(step.expected.drafts)
        expect(snapshot.context.index).toBe(step.expected.index)
        expect(snapshot.output).toEqual(step.expected.output)
      }
      expect(path.final).toEqual(path.steps.at(-1)?.expected ?? path.initial)
      expect(JSON.parse(JSON.stringify(path))).toEqual(path)
    }
  })

  it('together the paths cover every state and every transition of the machine', () => {
    const all = requests.flatMap(([, questions, options]) => questionnairePaths(questions, options))
    const coverage = questionnaireCoverage(all)
    expect(coverage.states.covered).toEqual(coverage.states.total)
    expect(coverage.transitions.covered).toEqual(coverage.transitions.total)
    expect(coverage.transitions.total).toEqual(questionnaireTransitions())
    expect(coverage.transitions.total).toHaveLength(16)
  })

  it('restricts the events to what a UI can perform', () => {
    const paths = questionnairePaths(deploymentQuestions, {
      eventTypes: [
        'option.chosen',
        'option.toggled',
        'custom.typed',
        'question.next',
        'batch.submitted',
      ],
    })
    const types = new Set(paths.flatMap((path) => path.steps.map((step) => step.event.type)))
    expect([...types].sort()).toEqual([
      'batch.submitted',
      'custom.typed',
      'option.chosen',
      'option.toggled',
      'question.next',
    ])
  })
})
