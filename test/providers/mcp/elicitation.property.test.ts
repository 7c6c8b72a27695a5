import fc from 'fast-check'
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UserQuestionError } from '../../../src/protocol/index.js'
import type { AskUserQuestionAnswer, AskUserQuestionItem } from '../../../src/protocol/index.js'
import { displayedForm } from '../../../src/vocabulary/validate.js'
import { connectPair } from '../../support/mcp-pair.js'
import type { McpPair } from '../../support/mcp-pair.js'

type Content = Record<string, string | number | boolean | string[]>

/** What the user does with one question, independent of how the form is shaped. */
type Pick =
  | { kind: 'skip' }
  | { kind: 'choose'; labels: string[]; custom?: string }
  | { kind: 'type'; custom: string }

const text = fc.string({ minLength: 1, maxLength: 12 }).filter((value) => value.trim() !== '')
const id = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/),
  text,
  fc.constantFrom('__proto__', 'constructor', 'q1', 'q1_other', 'a.b', 'with space'),
)

const question = (questionId: string) =>
  fc
    .record(
      {
        question: text,
        header: text,
        detail: text,
        options: fc.uniqueArray(
          fc.record({ label: text, description: text }, { requiredKeys: ['label'] }),
          // Unique as displayed: the seam refuses two labels that display the same.
          { maxLength: 4, selector: (option) => displayedForm(option.label) },
        ),
        multiSelect: fc.boolean(),
        review: fc.boolean(),
      },
      { requiredKeys: ['question', 'options', 'review'] },
    )
    .map(({ review, ...fields }): AskUserQuestionItem => {
      const item: AskUserQuestionItem = { id: questionId, ...fields }
      if (item.options?.length === 0) delete item.options
      const last = item.options?.at(-1)
      // A plan review names its approving option by label; the form shows it first.
      if (review && last !== undefined && item.detail !== undefined && item.multiSelect !== true) {
        item.intent = { kind: 'plan-review', approve: last.label }
      }
      return item
    })

const questions = fc
  .uniqueArray(id, { minLength: 1, maxLength: 6 })
  .chain((ids) => fc.tuple(...ids.map(question)))

/** A valid pick for each question. */
function picks(items: AskUserQuestionItem[]): fc.Arbitrary<Pick[]> {
  return fc.tuple(
    ...items.map((item): fc.Arbitrary<Pick> => {
      const labels = (item.options ?? []).map((option) => option.label)
      const skip = fc.constant<Pick>({ kind: 'skip' })
      if (labels.length === 0) {
        return fc.oneof(
          skip,
          text.map((custom): Pick => ({ kind: 'type', custom })),
        )
      }
      const chosen =
        item.multiSelect === true
          ? fc.subarray(labels)
          : fc.constantFrom(...labels).map((label) => [label])
      return fc.oneof(
        skip,
        fc
          .record({ labels: chosen, custom: text }, { requiredKeys: ['labels'] })
          .map((pick): Pick => ({ kind: 'choose', ...pick })),
      )
    }),
  )
}

/** Typed text as every UI gives it: line breaks as LF, then trimmed (the one rule of encodeAnswer). */
const typed = (text: string) => text.replace(/\r\n?/g, '\n').trim()

/** The canonical answer of DESIGN §5, worked out without the library's encoder. */
function oracle(items: AskUserQuestionItem[], chosen: Pick[]): AskUserQuestionAnswer {
  return {
    answers: items.map((item, index) => {
      const given = chosen[index] as Pick
      const pick: Pick =
        given.kind === 'skip' || given.custom === undefined
          ? given
          : { ...given, custom: typed(given.custom) }
      if (pick.kind === 'skip') return { id: item.id, selected: [] }
      if (pick.kind === 'type') return { id: item.id, selected: [], custom: pick.custom }
      const selected =
        pick.custom !== undefined && item.multiSelect !== true
          ? []
          : (item.options ?? []).map((o) => o.label).filter((l) => pick.labels.includes(l))
      return pick.custom === undefined
        ? { id: item.id, selected }
        : { id: item.id, selected, custom: pick.custom }
    }),
  }
}

/**
 * A client that fills the form it was sent the way a person would, knowing
 * only the documented layout: the properties come in question order, each
 * question's choice (or one boolean per option in the 2025-06-18 form, or the
 * text for an optionless question) followed by its typed-answer property.
 */
function fill(params: ElicitRequestFormParams, items: AskUserQuestionItem[], chosen: Pick[]) {
  const keys = Object.keys(params.requestedSchema.properties)
  const properties = params.requestedSchema.properties
  let cursor = 0
  const content: Content = {}
  items.forEach((item, index) => {
    const pick = chosen[index] as Pick
    const labels = (item.options ?? []).map((option) => option.label)
    if (labels.length === 0) {
      const key = keys[cursor++] as string
      expect(properties[key]?.type).toBe('string')
      if (pick.kind === 'type') content[key] = pick.custom
      return
    }
    const legacyMulti =
      item.multiSelect === true && properties[keys[cursor] as string]?.type === 'boolean'
    if (legacyMulti) {
      labels.forEach((label) => {
        const key = keys[cursor++] as string
        expect(properties[key]?.type).toBe('boolean')
        if (pick.kind === 'choose') content[key] = pick.labels.includes(label)
      })
    } else {
      const key = keys[cursor++] as string
      if (pick.kind === 'choose' && pick.labels.length > 0) {
        content[key] =
          item.multiSelect === true ? [...pick.labels].reverse() : (pick.labels[0] as string)
      }
    }
    const customKey = keys[cursor++] as string
    expect(properties[customKey]?.type).toBe('string')
    if (pick.kind === 'choose' && pick.custom !== undefined) content[customKey] = pick.custom
  })
  expect(cursor).toBe(keys.length)
  return content
}

type Mutation = (params: ElicitRequestFormParams, content: Content) => Content | undefined

/** Ways to spoil a valid form, each staying inside what the SDK lets through the wire. */
const mutations: fc.Arbitrary<Mutation> = fc.oneof(
  fc.string({ maxLength: 8 }).map(
    (name): Mutation =>
      (params, content) =>
        Object.hasOwn(params.requestedSchema.properties, `x${name}`)
          ? undefined
          : { ...content, [`x${name}`]: 'extra' },
  ),
  fc
    .tuple(fc.nat(), fc.oneof(fc.integer(), fc.boolean(), fc.constant<string[]>(['a'])))
    .map(([at, wrong]): Mutation => (params, content) => {
      const entries = Object.entries(params.requestedSchema.properties)
      if (entries.length === 0) return undefined
      const [key, schema] = entries[at % entries.length] as [string, { type: string }]
      const fits =
        (schema.type === 'string' && typeof wrong === 'string') ||
        (schema.type === 'boolean' && typeof wrong === 'boolean') ||
        (schema.type === 'array' && Array.isArray(wrong))
      return fits ? undefined : { ...content, [key]: wrong }
    }),
  fc.tuple(fc.nat(), text).map(([at, label]): Mutation => (params, content) => {
    const choices = Object.entries(params.requestedSchema.properties).filter(
      ([, schema]) => 'oneOf' in schema || 'enum' in schema || schema.type === 'array',
    )
    if (choices.length === 0) return undefined
    const [key, schema] = choices[at % choices.length] as [string, Record<string, unknown>]
    const offered = JSON.stringify(schema)
    if (offered.includes(JSON.stringify(label))) return undefined
    return { ...content, [key]: schema.type === 'array' ? [label] : label }
  }),
  fc.nat().map((at): Mutation => (params, content) => {
    const arrays = Object.entries(params.requestedSchema.properties).filter(
      ([, schema]) => schema.type === 'array',
    )
    if (arrays.length === 0) return undefined
    const [key, schema] = arrays[at % arrays.length] as [
      string,
      { items: { anyOf: Array<{ const: string }> } },
    ]
    const label = schema.items.anyOf[0]?.const
    return label === undefined ? undefined : { ...content, [key]: [label, label] }
  }),
)

describe.each([
  ['2025-11-25', undefined],
  ['2025-06-18', '2025-06-18'],
] as const)('the form round trip with a %s client', (_, protocolVersion) => {
  let pair: McpPair
  let respond: (params: ElicitRequestFormParams) => ElicitResult = () => ({ action: 'cancel' })
  beforeAll(async () => {
    pair = await connectPair({
      ...(protocolVersion === undefined ? {} : { protocolVersion }),
      autoRespond: (params) => respond(params),
    })
  })
  afterAll(() => pair.close())

  it('maps every valid form to the canonical answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        questions.chain((items) => fc.tuple(fc.constant(items), picks(items))),
        async ([items, chosen]) => {
          respond = (params) => ({ action: 'accept', content: fill(params, items, chosen) })
          await expect(pair.seam.ask({ questions: items })).resolves.toEqual(oracle(items, chosen))
        },
      ),
      { numRuns: 150 },
    )
  })

  it('rejects every spoilt form with BAD_ANSWER, never with an answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        questions.chain((items) => fc.tuple(fc.constant(items), picks(items))),
        mutations,
        async ([items, chosen], mutate) => {
          let spoilt: Content | undefined
          respond = (params) => {
            spoilt = mutate(params, fill(params, items, chosen))
            return { action: 'accept', content: spoilt ?? {} }
          }
          const outcome = await pair.seam.ask({ questions: items }).then(
            (answer) => ({ answer }),
            (error: unknown) => ({ error }),
          )
          fc.pre(spoilt !== undefined)
          expect(outcome).toHaveProperty('error')
          const { error } = outcome as { error: unknown }
          expect(error).toBeInstanceOf(UserQuestionError)
          expect((error as UserQuestionError).code).toBe('BAD_ANSWER')
        },
      ),
      { numRuns: 150 },
    )
  })
})
