import { afterEach, describe, expect, it, vi } from 'vitest'
import { createActor } from 'xstate'
import { settle } from '../support/settle.js'
import {
  UserQuestionError,
  UserQuestionErrorCodes,
  createAgentRegistry,
  createUserQuestions,
} from '../../src/protocol/index.js'
import type {
  AskUserQuestionAnswer,
  ProviderRequest,
  UserQuestionErrorCode,
  UserQuestions,
} from '../../src/protocol/index.js'
import {
  questionnaireAnswer,
  questionnaireMachine,
} from '../../src/machines/questionnaire.machine.js'
import type { QuestionnaireEvent } from '../../src/machines/questionnaire.machine.js'
import { createAskUserQuestionTool, formatToolError, nextStepByCode } from '../../src/tool/index.js'

/** A provider that answers by driving the real questionnaire with scripted UI events. */
function scriptedProvider(events: QuestionnaireEvent[]) {
  const seen: ProviderRequest[] = []
  return {
    seen,
    async ask(request: ProviderRequest): Promise<AskUserQuestionAnswer> {
      seen.push(request)
      const actor = createActor(questionnaireMachine, {
        input: { questions: request.questions },
      }).start()
      for (const event of events) actor.send(event)
      const output = actor.getSnapshot().output
      if (output === undefined) throw new Error('the script did not finish the questionnaire')
      return questionnaireAnswer(output)
    },
  }
}

/** A provider that never answers and records when its question is taken down. */
function silentProvider() {
  const taken: unknown[] = []
  return {
    taken,
    ask(request: ProviderRequest): Promise<AskUserQuestionAnswer> {
      return new Promise((_resolve, reject) => {
        request.signal.addEventListener('abort', () => {
          taken.push(request.signal.reason)
          reject(request.signal.reason)
        })
      })
    },
  }
}

const regionArgs = {
  questions: [
    {
      id: 'region',
      header: 'Target',
      question: 'Which region?',
      options: [
        { label: 'eu-west-1 (Recommended)', description: 'Next to the database' },
        { label: 'us-east-1' },
      ],
    },
    {
      id: 'checks',
      question: 'Which checks?',
      multi_select: true,
      options: [{ label: 'Smoke tests' }, { label: 'Load test' }],
    },
    { id: 'notes', question: 'Anything else?' },
  ],
}

const planArgs = {
  questions: [
    {
      id: 'plan',
      question: 'Approve this plan?',
      detail: '1. Build\n2. Ship',
      options: [{ label: 'Approve' }, { label: 'Revise' }],
      intent: { kind: 'plan-review', approve: 'Approve' },
    },
  ],
}

function codeOf(result: string): string {
  return result.slice(0, result.indexOf(':'))
}

let seams: UserQuestions[] = []
function seamWith(options: Parameters<typeof createUserQuestions>[0] = {}): UserQuestions {
  const seam = createUserQuestions(options)
  seams.push(seam)
  return seam
}

afterEach(async () => {
  vi.useRealTimers()
  await Promise.all(seams.map((seam) => seam.close()))
  seams = []
})

describe('createAskUserQuestionTool', () => {
  it('has the name, a description that teaches when to ask, and a JSON Schema', () => {
    const tool = createAskUserQuestionTool(seamWith())
    expect(tool.name).toBe('ask_user_question')
    expect(tool.description).toMatch(/rarely/)
    expect(tool.description).toMatch(/\(Recommended\)/)
    expect(tool.description).toMatch(/plan-review/)
    expect(tool.description).toMatch(/one call/)
    const schema = tool.inputSchema as {
      type: string
      required: string[]
      properties: { questions: { items: { properties: Record<string, { type?: string }> } } }
    }
    expect(schema.type).toBe('object')
    expect(schema.required).toEqual(['questions'])
    const fields = schema.properties.questions.items.properties
    expect(Object.keys(fields).sort()).toEqual(
      ['detail', 'header', 'id', 'intent', 'multi_select', 'options', 'question'].sort(),
    )
    expect(fields.multi_select?.type).toBe('boolean')
    expect(JSON.parse(JSON.stringify(tool.inputSchema))).toEqual(tool.inputSchema)
  })

  it('answers with compact JSON in question order, with no custom key when unused', async () => {
    const seam = seamWith()
    const provider = scriptedProvider([
      { type: 'option.chosen', label: 'eu-west-1 (Recommended)' },
      { type: 'option.toggled', label: 'Load test' },
      { type: 'custom.typed', text: 'and a canary' },
      { type: 'question.next' },
      { type: 'question.skipped' },
      { type: 'batch.submitted' },
    ])
    seam.registerProvider(provider)
    const result = await createAskUserQuestionTool(seam).execute(regionArgs)
    expect(result).toBe(
      '{"answers":[{"id":"region","selected":["eu-west-1 (Recommended)"]},{"id":"checks","selected":["Load test"],"custom":"and a canary"},{"id":"notes","selected":[]}]}',
    )
    expect(provider.seen[0]?.questions[1]).toEqual({
      id: 'checks',
      question: 'Which checks?',
      multiSelect: true,
      options: [{ label: 'Smoke tests' }, { label: 'Load test' }],
    })
  })

  it('passes the plan-review intent through and returns the approval', async () => {
    const seam = seamWith()
    seam.registerProvider(scriptedProvider([{ type: 'plan.approved' }]))
    const tool = createAskUserQuestionTool(seam)
    expect(await tool.execute(planArgs)).toBe('{"answers":[{"id":"plan","selected":["Approve"]}]}')
  })

  it('offers a structured result beside the text', async () => {
    const seam = seamWith()
    seam.registerProvider(scriptedProvider([{ type: 'plan.approved' }]))
    const tool = createAskUserQuestionTool(seam)
    const ok = await tool.executeForResult(planArgs)
    expect(ok.isError).toBe(false)
    expect(ok.structuredContent).toEqual({ answers: [{ id: 'plan', selected: ['Approve'] }] })
    expect(ok.content[0].text).toBe(JSON.stringify(ok.structuredContent))
    const failed = await tool.executeForResult({ questions: [] })
    expect(failed.isError).toBe(true)
    expect(failed.structuredContent).toMatchObject({ error: { code: 'EMPTY_QUESTIONS' } })
    expect(failed.content[0].text).toMatch(/^EMPTY_QUESTIONS: /)
  })
})

describe('argument errors name the field', () => {
  const base = () => structuredClone(regionArgs) as { questions: Record<string, unknown>[] }
  const cases: [string, unknown, string, UserQuestionErrorCode?][] = [
    ['not an object', 'ask me', 'arguments'],
    ['no questions', {}, 'questions'],
    ['questions not an array', { questions: 'x' }, 'questions'],
    ['a question that is not an object', { questions: [7] }, 'questions[0]'],
    [
      'a blank label',
      (() => {
        const args = base()
        args.questions[0] = { ...args.questions[0], options: [{ label: 'A' }, { label: '  ' }] }
        return args
      })(),
      'questions[0].options[1].label',
    ],
    [
      'an empty id',
      (() => {
        const args = base()
        args.questions[2] = { ...args.questions[2], id: '' }
        return args
      })(),
      'questions[2].id',
    ],
    ['a missing question text', { questions: [{ id: 'a' }] }, 'questions[0].question'],
    [
      'camelCase multiSelect',
      { questions: [{ id: 'a', question: 'Q?', multiSelect: true }] },
      'questions[0].multiSelect',
    ],
    [
      'a string multi_select',
      { questions: [{ id: 'a', question: 'Q?', multi_select: 'yes' }] },
      'questions[0].multi_select',
    ],
    [
      'a duplicate id',
      {
        questions: [
          { id: 'a', question: 'Q?' },
          { id: 'a', question: 'R?' },
        ],
      },
      'questions[1].id',
    ],
    [
      'a duplicate label',
      { questions: [{ id: 'a', question: 'Q?', options: [{ label: 'X' }, { label: 'X' }] }] },
      'questions[0].options[1].label',
    ],
    [
      'a numeric description',
      { questions: [{ id: 'a', question: 'Q?', options: [{ label: 'X', description: 1 }] }] },
      'questions[0].options[0].description',
    ],
    [
      'an unknown intent kind',
      {
        questions: [{ ...planArgs.questions[0], intent: { kind: 'vote', approve: 'Approve' } }],
      },
      'questions[0].intent.kind',
      'BAD_INTENT',
    ],
  ]

  it.each(cases)('%s', async (_name, args, field, code = 'INVALID_REQUEST') => {
    const seam = seamWith()
    const provider = scriptedProvider([{ type: 'batch.cancelled' }])
    seam.registerProvider(provider)
    const result = await createAskUserQuestionTool(seam).execute(args)
    expect(codeOf(result)).toBe(code)
    expect(result).toContain(`${field}: `)
    expect(result).not.toContain('\n')
    expect(provider.seen).toHaveLength(0)
  })
})

describe('a result for every error code', () => {
  it('EMPTY_QUESTIONS', async () => {
    const result = await createAskUserQuestionTool(seamWith()).execute({ questions: [] })
    expect(result).toBe(
      `EMPTY_QUESTIONS: questions is empty: ask at least one question. ${nextStepByCode.EMPTY_QUESTIONS}`,
    )
  })

  it('ASK_ABORTED before the ask, even with malformed arguments', async () => {
    const tool = createAskUserQuestionTool(seamWith())
    const controller = new AbortController()
    controller.abort()
    for (const args of [regionArgs, { questions: [] }, { questions: [{}] }]) {
      const result = await tool.execute(args, { signal: controller.signal })
      expect(codeOf(result)).toBe('ASK_ABORTED')
      expect(result).toMatch(/do not assume an answer/)
    }
  })

  it('ASK_ABORTED while pending takes the question down', async () => {
    const seam = seamWith()
    const provider = silentProvider()
    seam.registerProvider(provider)
    const controller = new AbortController()
    const pending = createAskUserQuestionTool(seam).execute(regionArgs, {
      signal: controller.signal,
    })
    await settle()
    expect(seam.pending()).toHaveLength(1)
    controller.abort()
    expect(codeOf(await pending)).toBe('ASK_ABORTED')
    expect(provider.taken).toHaveLength(1)
  })

  it('CALLER_NOT_LIVE, also before a shape error', async () => {
    const tool = createAskUserQuestionTool(seamWith())
    for (const args of [regionArgs, { questions: [{ id: 'x' }] }]) {
      const result = await tool.execute(args, { agent: { id: 'ghost' } })
      expect(codeOf(result)).toBe('CALLER_NOT_LIVE')
      expect(result).toMatch(/do not retry/)
    }
  })

  it('DELEGATED_CALLER tells a subagent to put the question in its final result', async () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    const child = { id: 'child' }
    agents.enter(root)
    agents.enter(child, root)
    const seam = seamWith({ agents })
    const provider = scriptedProvider([{ type: 'batch.cancelled' }])
    seam.registerProvider(provider)
    const tool = createAskUserQuestionTool(seam)
    for (const args of [regionArgs, { questions: [{ id: 'x' }] }]) {
      const result = await tool.execute(args, { agent: child })
      expect(codeOf(result)).toBe('DELEGATED_CALLER')
      expect(result).toMatch(/put the unresolved question in your final result/)
    }
    expect(provider.seen).toHaveLength(0)
    expect(codeOf(await tool.execute(regionArgs, { agent: root }))).toBe('ASK_CANCELLED')
  })

  it('BAD_INTENT when approve names no option, or there is no detail', async () => {
    const seam = seamWith()
    seam.registerProvider(scriptedProvider([{ type: 'plan.approved' }]))
    const tool = createAskUserQuestionTool(seam)
    const [plan] = planArgs.questions
    for (const question of [
      { ...plan, intent: { kind: 'plan-review', approve: 'Yes' } },
      { ...plan, detail: undefined },
    ]) {
      const result = await tool.execute({ questions: [question] })
      expect(codeOf(result)).toBe('BAD_INTENT')
      expect(result).toMatch(/intent\.approve/)
    }
  })

  it('NO_PROVIDER', async () => {
    const result = await createAskUserQuestionTool(seamWith()).execute(regionArgs)
    expect(codeOf(result)).toBe('NO_PROVIDER')
    expect(result).toMatch(/No user interface is connected/)
  })

  it('ASK_CANCELLED says the user wants to talk instead of answering', async () => {
    const seam = seamWith()
    seam.registerProvider(scriptedProvider([{ type: 'batch.cancelled' }]))
    const result = await createAskUserQuestionTool(seam).execute(regionArgs)
    expect(codeOf(result)).toBe('ASK_CANCELLED')
    expect(result).toMatch(/dismissed the questions\. They would rather talk than answer/)
  })

  it('ASK_CANCELLED from a plan discussion says to discuss the plan', async () => {
    const seam = seamWith()
    seam.registerProvider(scriptedProvider([{ type: 'plan.discussed' }]))
    const result = await createAskUserQuestionTool(seam).execute(planArgs)
    expect(codeOf(result)).toBe('ASK_CANCELLED')
    expect(result).toMatch(/discuss the plan/)
  })

  it('ASK_TIMEOUT says nobody answered and not to assume an answer', async () => {
    vi.useFakeTimers()
    const seam = seamWith()
    const provider = silentProvider()
    seam.registerProvider(provider)
    const pending = createAskUserQuestionTool(seam, { timeoutMs: 60_000 }).execute(regionArgs)
    await vi.advanceTimersByTimeAsync(60_000)
    const result = await pending
    expect(codeOf(result)).toBe('ASK_TIMEOUT')
    expect(result).toMatch(/Nobody answered within 1 minute\. Do not assume an answer/)
    expect(provider.taken).toHaveLength(1)
  })

  it('BAD_ANSWER when the UI answers with a label that was not offered', async () => {
    const seam = seamWith()
    seam.registerProvider({
      ask: async () => ({ answers: [{ id: 'plan', selected: ['Maybe'] }] }),
    })
    const result = await createAskUserQuestionTool(seam).execute(planArgs)
    expect(codeOf(result)).toBe('BAD_ANSWER')
    expect(result).toContain('"Maybe"')
  })

  it('PROVIDER_FAILED when the UI throws', async () => {
    const seam = seamWith()
    seam.registerProvider({
      ask: async () => {
        throw new TypeError('terminal went away')
      },
    })
    const result = await createAskUserQuestionTool(seam).execute(planArgs)
    expect(codeOf(result)).toBe('PROVIDER_FAILED')
    expect(result).toContain('terminal went away')
  })

  it('SEAM_CLOSED while pending and after close', async () => {
    const seam = seamWith()
    seam.registerProvider(silentProvider())
    const tool = createAskUserQuestionTool(seam)
    const pending = tool.execute(regionArgs)
    await seam.close()
    expect(codeOf(await pending)).toBe('SEAM_CLOSED')
    expect(codeOf(await tool.execute(regionArgs))).toBe('SEAM_CLOSED')
    expect(codeOf(await tool.execute({ questions: [{}] }))).toBe('SEAM_CLOSED')
  })

  it('DUPLICATE_PROVIDER and every other code has one line for the model', () => {
    expect(Object.keys(nextStepByCode).sort()).toEqual(Object.keys(UserQuestionErrorCodes).sort())
    for (const code of Object.keys(UserQuestionErrorCodes) as UserQuestionErrorCode[]) {
      const line = formatToolError(new UserQuestionError('it\nhappened', code))
      // A cancel is a dismissal, in the same words whichever UI threw it.
      const happened =
        code === 'ASK_CANCELLED' ? 'The user dismissed the questions.' : 'it happened.'
      expect(line.startsWith(`${code}: ${happened} `)).toBe(true)
      expect(line).not.toContain('\n')
    }
  })

  it('never rejects, whatever the seam throws', async () => {
    const broken = {
      ask: () => {
        throw new RangeError('boom')
      },
    } as unknown as UserQuestions
    const result = await createAskUserQuestionTool(broken).execute(planArgs)
    expect(codeOf(result)).toBe('PROVIDER_FAILED')
  })
})

describe('the askseam entry point', () => {
  it('does not reach zod: only src/tool imports it', async () => {
    const { readdir, readFile } = await import('node:fs/promises')
    const { join } = await import('node:path')
    const offenders: string[] = []
    for (const folder of ['src/protocol', 'src/machines']) {
      for (const name of await readdir(folder, { recursive: true })) {
        if (!name.endsWith('.ts')) continue
        const text = await readFile(join(folder, name), 'utf8')
        if (/from ['"]zod|import\(['"]zod|\/tool\//.test(text)) offenders.push(join(folder, name))
      }
    }
    expect(offenders).toEqual([])
  })
})
