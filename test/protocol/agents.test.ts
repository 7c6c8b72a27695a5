import { describe, expect, it } from 'vitest'
import { HarnessError, createAgentRegistry, createUserQuestions } from '../../src/protocol/index.js'
import type {
  Agent,
  AgentRegistry,
  AskUserQuestionRequest,
  UserQuestions,
} from '../../src/protocol/index.js'
import {
  choice,
  createControllableProvider,
  rejectionOf,
  skipAll,
} from '../support/controllable-provider.js'
import type { ControllableProvider } from '../support/controllable-provider.js'

function seamWith(agents?: AgentRegistry): { seam: UserQuestions; provider: ControllableProvider } {
  const seam = createUserQuestions(agents === undefined ? {} : { agents })
  const provider = createControllableProvider()
  seam.registerProvider(provider)
  return { seam, provider }
}

/** Asks as `agent`; the ask is answered with a skip once it reaches the provider. */
async function askAs(
  seam: UserQuestions,
  provider: ControllableProvider,
  agent: unknown,
): Promise<unknown> {
  const index = provider.calls.length
  const asking = seam.ask({ questions: [choice('q')], agent } as AskUserQuestionRequest)
  const settled = asking.then(
    () => undefined,
    () => undefined,
  )
  await Promise.race([
    settled,
    provider.call(index).then((call) => call.resolve(skipAll([choice('q')]))),
  ])
  return asking
}

/** Expects a HarnessError of `code` from `run`. */
function harnessErrorFrom(run: () => unknown, code: string): HarnessError {
  let caught: unknown
  try {
    run()
  } catch (error: unknown) {
    caught = error
  }
  expect(caught).toBeInstanceOf(HarnessError)
  expect((caught as HarnessError).code).toBe(code)
  return caught as HarnessError
}

describe('caller authority', () => {
  it('refuses an agent-bearing ask on a seam without a registry: CALLER_NOT_LIVE', async () => {
    const { seam, provider } = seamWith()
    const error = await rejectionOf(askAs(seam, provider, { id: 'root' }), 'CALLER_NOT_LIVE')
    expect(error.message).toContain('"root"')
    expect(error.details).toMatchObject({ reason: 'no-registry' })
    expect(provider.calls).toHaveLength(0)
  })

  it('lets an ask without agent take the plain provider path, with or without a registry', async () => {
    for (const agents of [undefined, createAgentRegistry()]) {
      const { seam, provider } = seamWith(agents)
      const asking = seam.ask({ questions: [choice('q')] })
      const call = await provider.call(0)
      expect(call.request).not.toHaveProperty('agent')
      call.resolve(skipAll([choice('q')]))
      await expect(asking).resolves.toEqual(skipAll([choice('q')]))
    }
  })

  it('lets the exact live root ask, handing the provider that very instance', async () => {
    const agents = createAgentRegistry()
    const root: Agent = { id: 'root' }
    agents.enter(root)
    const { seam, provider } = seamWith(agents)
    const asking = seam.ask({ questions: [choice('q')], agent: root })
    const call = await provider.call(0)
    expect(call.request.agent).toBe(root)
    expect(seam.pending()[0]?.agentId).toBe('root')
    call.resolve(skipAll([choice('q')]))
    await expect(asking).resolves.toEqual(skipAll([choice('q')]))
  })

  it('refuses a stale object that reuses a live id: CALLER_NOT_LIVE', async () => {
    const agents = createAgentRegistry()
    agents.enter({ id: 'root' })
    const { seam, provider } = seamWith(agents)
    const error = await rejectionOf(askAs(seam, provider, { id: 'root' }), 'CALLER_NOT_LIVE')
    expect(error.message).toContain('"root"')
    expect(error.details).toMatchObject({ agentId: 'root', reason: 'not-live' })
    expect(provider.calls).toHaveLength(0)
  })

  it('refuses an agent that has exited: CALLER_NOT_LIVE', async () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    const exit = agents.enter(root)
    const { seam, provider } = seamWith(agents)
    await expect(askAs(seam, provider, root)).resolves.toBeDefined()
    exit()
    await rejectionOf(askAs(seam, provider, root), 'CALLER_NOT_LIVE')
    expect(provider.calls).toHaveLength(1)
  })

  it('refuses an agent that was never entered, or is not an agent at all: CALLER_NOT_LIVE', async () => {
    const { seam, provider } = seamWith(createAgentRegistry())
    for (const agent of [{ id: 'nobody' }, {}, { id: 3 }, 'root', null]) {
      await rejectionOf(askAs(seam, provider, agent), 'CALLER_NOT_LIVE')
    }
    expect(provider.calls).toHaveLength(0)
  })

  it('refuses a live agent owned by another: DELEGATED_CALLER naming both', async () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    const child = { id: 'child' }
    agents.enter(root)
    agents.enter(child, root)
    const { seam, provider } = seamWith(agents)
    const error = await rejectionOf(askAs(seam, provider, child), 'DELEGATED_CALLER')
    expect(error.details).toMatchObject({ agentId: 'child', ownerId: 'root' })
    expect(error.message).toContain('"child"')
    expect(error.message).toContain('"root"')
    expect(provider.calls).toHaveLength(0)
  })

  it('refuses a grandchild too: only a runtime root has a human to ask', async () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    const child = { id: 'child' }
    const grandchild = { id: 'grandchild' }
    agents.enter(root)
    agents.enter(child, root)
    agents.enter(grandchild, child)
    const { seam, provider } = seamWith(agents)
    await rejectionOf(askAs(seam, provider, grandchild), 'DELEGATED_CALLER')
  })

  it('lets a root whose own data says it was once a child ask: lineage is not authority', async () => {
    const agents = createAgentRegistry()
    const resumed = { id: 'session-2', parentId: 'session-1', spawnedBy: 'planner' }
    agents.enter(resumed)
    const { seam, provider } = seamWith(agents)
    await expect(askAs(seam, provider, resumed)).resolves.toEqual(skipAll([choice('q')]))
    expect(provider.calls[0]?.request.agent).toBe(resumed)
  })

  it('lets a session resumed as a new root ask under the id its child instance had', async () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    agents.enter(root)
    const asChild = { id: 'worker' }
    const exitChild = agents.enter(asChild, root)
    const { seam, provider } = seamWith(agents)
    await rejectionOf(askAs(seam, provider, asChild), 'DELEGATED_CALLER')
    exitChild()
    const asRoot = { id: 'worker' }
    agents.enter(asRoot)
    await expect(askAs(seam, provider, asRoot)).resolves.toBeDefined()
    await rejectionOf(askAs(seam, provider, asChild), 'CALLER_NOT_LIVE')
  })

  it('keeps a live child delegated after its owner exits', async () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    const child = { id: 'child' }
    const exitRoot = agents.enter(root)
    agents.enter(child, root)
    exitRoot()
    const { seam, provider } = seamWith(agents)
    await rejectionOf(askAs(seam, provider, child), 'DELEGATED_CALLER')
  })

  it('consults any AgentRegistry implementation, not only createAgentRegistry', async () => {
    const root = { id: 'root' }
    const child = { id: 'child' }
    const registry: AgentRegistry = {
      get: (id) => ({ root, child })[id as 'root' | 'child'],
      ownerOf: (agent) => (agent === child ? root : undefined),
    }
    const { seam, provider } = seamWith(registry)
    await expect(askAs(seam, provider, root)).resolves.toBeDefined()
    await rejectionOf(askAs(seam, provider, child), 'DELEGATED_CALLER')
    await rejectionOf(askAs(seam, provider, { id: 'root' }), 'CALLER_NOT_LIVE')
  })
})

describe('createAgentRegistry', () => {
  it('knows the live instance per id and who owns whom', () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    const child = { id: 'child' }
    agents.enter(root)
    agents.enter(child, root)
    expect(agents.get('root')).toBe(root)
    expect(agents.get('child')).toBe(child)
    expect(agents.get('nobody')).toBeUndefined()
    expect(agents.ownerOf(root)).toBeUndefined()
    expect(agents.ownerOf(child)).toBe(root)
  })

  it('says nothing about the owner of an instance that is not live', () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    agents.enter(root)
    agents.enter({ id: 'child' }, root)
    expect(agents.ownerOf({ id: 'child' })).toBeUndefined()
  })

  it('refuses a second live agent with the same id (AGENT_ID_IN_USE), also the same instance', () => {
    const agents = createAgentRegistry()
    const first = { id: 'root' }
    agents.enter(first)
    const error = harnessErrorFrom(() => agents.enter({ id: 'root' }), 'AGENT_ID_IN_USE')
    expect(error.message).toContain('"root"')
    harnessErrorFrom(() => agents.enter(first), 'AGENT_ID_IN_USE')
    expect(agents.get('root')).toBe(first)
  })

  it('refuses an owner that is not live (OWNER_NOT_LIVE), also a stale owner object', () => {
    const agents = createAgentRegistry()
    const error = harnessErrorFrom(
      () => agents.enter({ id: 'child' }, { id: 'root' }),
      'OWNER_NOT_LIVE',
    )
    expect(error.message).toContain('"root"')
    agents.enter({ id: 'root' })
    harnessErrorFrom(() => agents.enter({ id: 'child' }, { id: 'root' }), 'OWNER_NOT_LIVE')
    expect(agents.get('child')).toBeUndefined()
  })

  it('refuses something that is not an agent with a TypeError', () => {
    const agents = createAgentRegistry()
    for (const agent of [null, {}, { id: '' }, { id: 5 }]) {
      expect(() => agents.enter(agent as unknown as Agent)).toThrow(TypeError)
    }
  })

  it('has an idempotent exit, after which the id may be entered again', () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    const exit = agents.enter(root)
    exit()
    expect(agents.get('root')).toBeUndefined()
    expect(() => exit()).not.toThrow()
    const again = { id: 'root' }
    agents.enter(again)
    expect(agents.get('root')).toBe(again)
  })

  it('has a stale-safe exit: it never removes a later instance reusing the id', () => {
    const agents = createAgentRegistry()
    const exitOld = agents.enter({ id: 'root' })
    exitOld()
    const current = { id: 'root' }
    agents.enter(current)
    exitOld()
    expect(agents.get('root')).toBe(current)
  })

  it('makes a re-entered instance a root when it comes back without an owner', () => {
    const agents = createAgentRegistry()
    const root = { id: 'root' }
    agents.enter(root)
    const worker = { id: 'worker' }
    const exit = agents.enter(worker, root)
    exit()
    agents.enter(worker)
    expect(agents.ownerOf(worker)).toBeUndefined()
  })
})

describe('registry edges', () => {
  it('knows no owner for an object that is not the live instance', () => {
    const agents = createAgentRegistry()
    const root: Agent = { id: 'root' }
    const child: Agent = { id: 'child' }
    agents.enter(root)
    const exit = agents.enter(child, root)
    expect(agents.ownerOf(child)).toBe(root)
    expect(agents.ownerOf({ id: 'child' })).toBeUndefined()
    exit()
    expect(agents.ownerOf(child)).toBeUndefined()
  })

  it('lets the same object, once a child, come back as a root that may ask', async () => {
    const agents = createAgentRegistry()
    const root: Agent = { id: 'root' }
    const worker: Agent = { id: 'worker' }
    agents.enter(root)
    const exitChild = agents.enter(worker, root)
    exitChild()
    agents.enter(worker)
    expect(agents.ownerOf(worker)).toBeUndefined()
    const { seam, provider } = seamWith(agents)
    await expect(askAs(seam, provider, worker)).resolves.toBeDefined()
  })

  it.each([
    null,
    'root',
    7,
    {},
    { id: '' },
    { id: 3 },
    Object.assign(() => undefined, { id: 'f' }),
  ])('refuses to enter %j, saying what an agent is', (agent) => {
    const enter = () => createAgentRegistry().enter(agent as unknown as Agent)
    expect(enter).toThrow(TypeError)
    expect(enter).toThrow('enter(agent): agent must be an object with a non-blank string id')
  })

  it.each([
    ['a NUL', 'root\u0000'],
    ['an unpaired surrogate', 'root\ud800'],
  ])(
    'refuses to enter an agent whose id holds %s: no store keeps it as its ask’s agentId',
    (_name, id) => {
      const registry = createAgentRegistry()
      expect(() => registry.enter({ id })).toThrow(
        new TypeError(
          'enter(agent): the agent id must not hold a NUL or an unpaired surrogate: no store keeps one as given',
        ),
      )
      expect(registry.get(id)).toBeUndefined()
    },
  )

  it.each([
    ['a NUL', 'root\u0000'],
    ['an unpaired surrogate', 'root\udc00'],
  ])(
    'refuses a caller whose registry of its own hands out an id holding %s: INVALID_REQUEST on agent, before any provider sees it',
    async (_name, id) => {
      const agent = { id }
      const registry: AgentRegistry = {
        get: (asked) => (asked === id ? agent : undefined),
        ownerOf: () => undefined,
      }
      const { seam, provider } = seamWith(registry)
      const error = await rejectionOf(askAs(seam, provider, agent), 'INVALID_REQUEST')
      expect(error.details).toStrictEqual({ field: 'agent' })
      expect(error.message).toContain('NUL or an unpaired surrogate')
      expect(provider.calls).toHaveLength(0)
    },
  )

  it.each([
    ['an object without an id', {}, 'without an id'],
    ['a string', 'root', 'without an id'],
    ['null', null, 'without an id'],
    ['an id that is not live', { id: 'ghost' }, '"ghost"'],
  ])('refuses %s as the caller, naming it', async (_name, agent, shown) => {
    const { seam, provider } = seamWith(createAgentRegistry())
    const error = await rejectionOf(askAs(seam, provider, agent), 'CALLER_NOT_LIVE')
    expect(error.message).toContain(shown)
    expect(error.details).toStrictEqual(
      typeof agent === 'object' && agent !== null && 'id' in agent
        ? { agentId: 'ghost', reason: 'not-live' }
        : { reason: 'not-live' },
    )
  })
})
