import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { UserQuestionErrorCodes, createUserQuestions } from '../../src/protocol/index.js'
import type { UserQuestions } from '../../src/protocol/index.js'
import { createAskUserQuestionTool } from '../../src/tool/index.js'
import type { AskUserQuestionExecuteOptions } from '../../src/tool/index.js'
import { proxyThrowingOn, revokedProxy, selfThrowing, throwingGetters } from './hostile-values.js'

// Issue 10, item 4: tool.execute is documented never to reject, yet
// execute(args, null), arguments with throwing getters or Proxies, and
// options whose signal getter throws all rejected with raw TypeErrors.

const seam: UserQuestions = createUserQuestions({ timeoutMs: 2_000 })
seam.registerProvider({
  ask: async ({ questions }) => ({ answers: questions.map(({ id }) => ({ id, selected: [] })) }),
})
afterAll(() => seam.close())
const tool = createAskUserQuestionTool(seam)

const good = () => ({ questions: [{ id: 'go', question: 'Go?', options: [{ label: 'Yes' }] }] })
const codeOf = (text: string) => /^([A-Z_]+): /.exec(text)?.[1]

function expectCodedOrAnswer(text: string): void {
  if (text.startsWith('{')) {
    expect(JSON.parse(text)).toHaveProperty('answers')
    return
  }
  const code = codeOf(text)
  expect(code).toBeDefined()
  expect(Object.keys(UserQuestionErrorCodes)).toContain(code)
  // The sentence for the code is always there (an unknown code once printed "undefined").
  expect(text).not.toMatch(/undefined\.?$/)
}

function patchedSignal(key: string): AbortSignal {
  const signal = new AbortController().signal
  Object.defineProperty(signal, key, {
    get() {
      throw new TypeError(`${key} throws`)
    },
  })
  return signal
}

const hostileArgs: Record<string, () => unknown> = {
  ...selfThrowing,
  'questions behind a throwing getter': () => throwingGetters(['questions']),
  'a Proxy whose get throws': () => proxyThrowingOn(good()),
  'a revoked Proxy': () => revokedProxy(),
  'a question behind a throwing getter': () => ({ questions: [throwingGetters(['id'])] }),
  'a cycle': () => {
    const args: Record<string, unknown> = good()
    args.self = args
    return args
  },
  'a BigInt': () => ({ questions: [{ id: 'a', question: 'Q?', header: 10n }] }),
  'sparse questions': () => ({ questions: new Array(2) }),
  'a toJSON that throws': () => ({
    toJSON() {
      throw new Error('no')
    },
  }),
}

const hostileOptions: Record<string, () => unknown> = {
  null: () => null,
  undefined: () => undefined,
  'a number': () => 42,
  'a throwing signal getter': () => throwingGetters(['signal']),
  'a throwing agent getter': () => throwingGetters(['agent']),
  'a Proxy whose get throws': () => proxyThrowingOn({}),
  'a revoked Proxy': () => revokedProxy(),
  'a signal whose aborted getter throws': () => ({ signal: patchedSignal('aborted') }),
  'a revoked Proxy as signal': () => ({ signal: revokedProxy() }),
  'a signal that is a string': () => ({ signal: 'abort' }),
  'an agent that is a Proxy whose get throws': () => ({ agent: proxyThrowingOn({ id: 'a' }) }),
}

describe('execute resolves with a coded sentence, whatever it is handed', () => {
  it.each(Object.entries(hostileArgs))('arguments: %s', async (_name, make) => {
    const text = await tool.execute(make())
    expectCodedOrAnswer(text)
    expect(codeOf(text)).toBe('INVALID_REQUEST')
  })

  it.each(Object.entries(hostileOptions))('options: %s', async (_name, make) => {
    const options = make() as AskUserQuestionExecuteOptions
    const text = await tool.execute(good(), options)
    expectCodedOrAnswer(text)
    const result = await tool.executeForResult(good(), options)
    expect(result.content[0].text).toBe(text.startsWith('{') ? result.content[0].text : text)
  })

  it('execute(args, null) asks as if no options were given', async () => {
    expect(JSON.parse(await tool.execute(good(), null))).toEqual({
      answers: [{ id: 'go', selected: [] }],
    })
  })

  it('a throwing signal getter names options.signal', async () => {
    const text = await tool.execute(good(), throwingGetters(['signal']) as never)
    expect(text).toMatch(/^INVALID_REQUEST: options\.signal could not be read/)
  })

  it('a sparse questions array names the hole', async () => {
    const questions = new Array<unknown>(3)
    questions[0] = good().questions[0]
    questions[2] = { ...good().questions[0], id: 'other' }
    const text = await tool.execute({ questions })
    expect(text).toMatch(/^INVALID_REQUEST: questions\[1\]/)
  })

  it('an unknown code from the provider prints PROVIDER_FAILED and never "undefined"', async () => {
    const other = createUserQuestions()
    other.registerProvider({
      ask: () =>
        Promise.reject(
          Object.assign(new Error('the dialog broke'), {
            name: 'UserQuestionError',
            code: 'DIALOG_BROKE',
          }),
        ),
    })
    const text = await createAskUserQuestionTool(other).execute(good())
    expect(codeOf(text)).toBe('PROVIDER_FAILED')
    expect(text).toContain('DIALOG_BROKE')
    expect(text).not.toContain('undefined')
    await other.close()
  })
})

describe('property: execute never rejects over generated hostile values', () => {
  // Hostile values are built inside the property from their names: fast-check
  // probes every generated value (for a clone method), and a revoked Proxy
  // throws on any probe.
  const argsArb = fc.oneof(
    fc.constantFrom(...Object.keys(hostileArgs)).map((name) => ({ hostile: name })),
    fc.constant({ plain: good() }),
    fc.jsonValue().map((plain) => ({ plain })),
    fc.anything().map((plain) => ({ plain })),
  )
  const optionsArb = fc.constantFrom(...Object.keys(hostileOptions))
  const build = (pick: { hostile: string } | { plain: unknown }) =>
    'hostile' in pick ? hostileArgs[pick.hostile]!() : pick.plain

  it('every call resolves, with the answers or a known code', async () => {
    await fc.assert(
      fc.asyncProperty(argsArb, optionsArb, fc.boolean(), async (pick, optionsName, forResult) => {
        const args = build(pick)
        const options = hostileOptions[optionsName]!()
        const execute = forResult
          ? async () => (await tool.executeForResult(args, options as never)).content[0].text
          : () => tool.execute(args, options as never)
        expectCodedOrAnswer(await execute())
      }),
      { numRuns: 300 },
    )
    expect(seam.pending()).toEqual([])
  })
})
