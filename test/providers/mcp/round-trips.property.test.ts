import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Server, createMcpHandler } from '@modelcontextprotocol/server'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../../src/protocol/index.js'
import type { AskStore } from '../../../src/protocol/index.js'
import { dropSeamForTesting } from '../../../src/protocol/seam.js'
import { createRoundTrips, serveTools } from '../../../src/providers/mcp/index.js'

/*
 * The exactly-once rule under any interleaving of retries, replays of old
 * requestStates, tampered ones and instance crashes: two instances share one
 * store and one secret, and one tool call goes through both in whatever
 * order fast-check picks. Whatever happens, each ask's committed answer is
 * the first answer a valid retry brought while it was pending, and the
 * tool's final result reports exactly the committed answers.
 */

const SECRET = 'a fleet secret that is long enough to seal state'
const DB = ['Postgres', 'SQLite'] as const
const CACHE = ['Redis', 'None'] as const

interface Instance {
  client: Client
  crash(): Promise<void>
}

async function startInstance(store: AskStore): Promise<Instance> {
  const seam = createUserQuestions({ store })
  const rounds = createRoundTrips({ seam, store, secret: SECRET })
  const handler = createMcpHandler(
    () => {
      const server = new Server(
        { name: 'rounds', version: '0.0.0' },
        { capabilities: { tools: {} } },
      )
      serveTools(server, rounds, [
        {
          name: 'pick_stack',
          handler: async (asking) => {
            const db = await asking.ask({
              questions: [
                { id: 'db', question: 'Which database?', options: DB.map((label) => ({ label })) },
              ],
            })
            const cache = await asking.ask({
              questions: [
                {
                  id: 'cache',
                  question: 'Which cache?',
                  options: CACHE.map((label) => ({ label })),
                },
              ],
            })
            const chosen = [db, cache].map((answer) => answer.answers[0]?.selected[0])
            return { content: [{ type: 'text', text: chosen.join(' + ') }] }
          },
        },
      ])
      return server
    },
    { legacy: 'reject' },
  )
  const client = new Client(
    { name: 'property-client', version: '0.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  )
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  )
  return {
    client,
    async crash() {
      // As a killed process: nothing released, nothing settled.
      dropSeamForTesting(seam)
      await client.close()
      await handler.close()
    },
  }
}

interface Round {
  askId: string
  /** The question the round asks: `db` or `cache`. */
  question: 'db' | 'cache'
  requestState: string
}

type Action =
  | { type: 'retry'; instance: number; round: number; choice: number }
  | { type: 'tamper'; instance: number; round: number; at: number }
  | { type: 'crash'; instance: number }

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      type: fc.constant('retry' as const),
      instance: fc.nat(1),
      round: fc.nat(),
      choice: fc.nat(1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('tamper' as const),
      instance: fc.nat(1),
      round: fc.nat(),
      at: fc.nat(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('crash' as const), instance: fc.nat(1) }) },
)

function call(client: Client, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  return client.callTool(
    { name: 'pick_stack', arguments: {}, ...params } as never,
    {
      allowInputRequired: true,
    } as never,
  ) as unknown as Promise<Record<string, unknown>>
}

function roundOf(result: Record<string, unknown>): Round {
  const inputRequests = result.inputRequests as Record<
    string,
    { params: { requestedSchema: { properties: object } } }
  >
  const [askId, request] = Object.entries(inputRequests)[0] as [
    string,
    { params: { requestedSchema: { properties: object } } },
  ]
  const question = 'db' in request.params.requestedSchema.properties ? 'db' : 'cache'
  return { askId, question, requestState: result.requestState as string }
}

describe('round trips under retries, replays, tampering and crashes', () => {
  it(
    'commit each answer exactly once, and the result reports the committed answers',
    { timeout: 120_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 10 }), async (actions) => {
          const store = createMemoryStore()
          const instances = [await startInstance(store), await startInstance(store)]
          try {
            const rounds: Round[] = [roundOf(await call(instances[0]!.client, {}))]
            const committed = new Map<string, string>()
            let finished: string | undefined
            for (const step of actions) {
              const instance = instances[step.instance] as Instance
              const round = rounds[
                (step.type === 'crash' ? 0 : step.round) % rounds.length
              ] as Round
              if (step.type === 'crash') {
                await instance.crash()
                instances[step.instance] = await startInstance(store)
                continue
              }
              if (step.type === 'tamper') {
                const at = step.at % round.requestState.length
                const swapped = round.requestState[at] === 'x' ? 'y' : 'x'
                const tampered = `${round.requestState.slice(0, at)}${swapped}${round.requestState.slice(at + 1)}`
                await expect(
                  call(instance.client, {
                    inputResponses: {
                      [round.askId]: { action: 'accept', content: { [round.question]: 'SQLite' } },
                    },
                    requestState: tampered,
                  }),
                ).rejects.toMatchObject({ code: -32602 })
                continue
              }
              const label = (round.question === 'db' ? DB : CACHE)[step.choice] as string
              const result = await call(instance.client, {
                inputResponses: {
                  [round.askId]: { action: 'accept', content: { [round.question]: label } },
                },
                requestState: round.requestState,
              })
              if (!committed.has(round.askId)) committed.set(round.askId, label)
              const record = await store.get(round.askId)
              const stored = (
                record?.outcome as { answer?: { answers: Array<{ selected: string[] }> } }
              )?.answer?.answers[0]?.selected[0]
              expect(stored).toBe(committed.get(round.askId))
              if (result.resultType === 'input_required') {
                const next = roundOf(result)
                expect(next.question).toBe('cache')
                if (
                  !rounds.some(
                    (known) =>
                      known.askId === next.askId && known.requestState === next.requestState,
                  )
                ) {
                  rounds.push(next)
                }
              } else {
                finished = (result.content as Array<{ text: string }>)[0]?.text
                const dbAsk = rounds.find((known) => known.question === 'db')?.askId as string
                const cacheAsk = rounds.find((known) => known.question === 'cache')?.askId as string
                expect(finished).toBe(`${committed.get(dbAsk)} + ${committed.get(cacheAsk)}`)
              }
            }
            // At most one ask per question: a retry never admits a second one.
            expect(new Set(rounds.map((known) => known.askId)).size).toBeLessThanOrEqual(2)
          } finally {
            await Promise.all(instances.map((instance) => instance.crash()))
            await store.close()
          }
        }),
        { numRuns: 30 },
      )
    },
  )
})
