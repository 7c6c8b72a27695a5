import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AskStore } from '../../src/protocol/index.js'
import { askMachine, presentationMachine } from '../../src/machines/index.js'
import type { Scenario } from './ask-model.js'
import {
  isReopenedOnCount,
  isRetriedThenAccepted,
  pathsOf,
  serializeStep,
} from './ask-model-paths.js'
import type { ModelPath } from './ask-model-paths.js'
import { World } from './ask-model-world.js'

/**
 * Paths generated from askMachine and its presentationMachine child (see
 * ask-model.ts) drive the real seam on a real store (see ask-model-world.ts).
 * Exported as a suite over a store factory, so every store runs the same paths.
 */

const scenario = (name: string, flags: Partial<Omit<Scenario, 'name'>>): Scenario => ({
  name,
  providerHere: false,
  deadline: false,
  wait: false,
  grace: false,
  key: false,
  elsewhere: false,
  ...flags,
})

const scenarios: Scenario[] = [
  scenario('provider here, deadline, grace', { providerHere: true, deadline: true, grace: true }),
  scenario('provider here, a provider elsewhere comes and goes', {
    providerHere: true,
    elsewhere: true,
  }),
  scenario('provider here, keyed, deadline', { providerHere: true, deadline: true, key: true }),
  scenario('no provider yet, wait, deadline, grace, one elsewhere', {
    deadline: true,
    wait: true,
    grace: true,
    elsewhere: true,
  }),
  scenario('no provider, no wait', {}),
  scenario('no provider, no wait, keyed, deadline', { deadline: true, key: true }),
  scenario('asked before the fleet is read', { wait: true, fleetUnknown: true }),
  scenario('another seam holds the key', { wait: true, key: true, follows: true }),
  scenario('who may answer, and two approvals (DESIGN §12)', {
    providerHere: true,
    deadline: true,
    policy: true,
  }),
  // A UI that reloads is shown the approvals the store counted before it came back.
  scenario('two approvals, the UI reloads within the grace', {
    providerHere: true,
    grace: true,
    policy: true,
  }),
]

const describePath = (path: ModelPath) => path.at(-1)!.steps.map(serializeStep).join(' → ')

/** Runs one path against a fresh world; returns whether every provider heard how the ask ended. */
async function run(
  scenario: Scenario,
  makeStore: () => AskStore,
  path: ModelPath,
): Promise<boolean> {
  vi.setSystemTime(0)
  const world = new World(scenario, makeStore)
  try {
    await world.start()
    await world.check(path[0]!)
    for (let index = 1; index < path.length; index++) {
      const state = path[index]!
      try {
        await world.perform(state.steps.at(-1)!, path[index - 1]!)
        await world.check(state)
      } catch (error: unknown) {
        throw new Error(
          `step ${index} of ${scenario.name}: ${describePath(path)}: ${String(error)}`,
          {
            cause: error,
          },
        )
      }
    }
    return path.at(-1)!.ask.status === 'active' || world.everyProviderHeard()
  } finally {
    await world.finish()
  }
}

/** Every event transition of a machine, as `<state node id> <event type>`. */
function transitionsOf(root: typeof askMachine.root | typeof presentationMachine.root): string[] {
  const all: string[] = []
  const visit = (node: typeof root) => {
    for (const type of node.transitions.keys()) all.push(`${node.id} ${type}`)
    for (const child of Object.values(node.states)) visit(child)
  }
  visit(root)
  return all
}

export function askModelSuite(
  storeName: string,
  durable: boolean,
  makeStore: () => AskStore,
): void {
  describe(`askMachine and presentationMachine paths drive the seam (${storeName})`, () => {
    beforeEach(() => {
      vi.useFakeTimers({
        toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
      })
      vi.setSystemTime(0)
    })
    afterEach(() => {
      vi.useRealTimers()
    })

    const generated = scenarios.map((scenario) => ({ scenario, paths: pathsOf(scenario, durable) }))

    for (const { scenario, paths } of generated) {
      it(`${scenario.name}: ${paths.length} paths`, async () => {
        for (const path of paths) {
          expect(await run(scenario, makeStore, path), describePath(path)).toBe(true)
        }
      })
    }

    it('the paths take every event transition of both machines', () => {
      const taken = new Set(
        generated.flatMap(({ paths }) => paths.flatMap((path) => path.at(-1)!.taken)),
      )
      const all = [...transitionsOf(askMachine.root), ...transitionsOf(presentationMachine.root)]
      const untaken = all.filter((key) => !taken.has(key))
      const count = generated.reduce((sum, { paths }) => sum + paths.length, 0)
      console.info(
        `askMachine + presentationMachine model (${storeName}): ${count} paths, ${all.length - untaken.length}/${all.length} event transitions`,
      )
      expect(untaken).toEqual([])
    })

    it('some path has a presentation’s commit fail, be retried after its backoff, and be accepted', () => {
      const retried = generated.flatMap(({ paths }) =>
        paths.filter((path) => isRetriedThenAccepted(path.at(-1)!)),
      )
      expect(retried.length).toBeGreaterThan(0)
    })

    it('some path has a UI come back after an approval was counted, and be shown the count', () => {
      const reopened = generated.flatMap(({ paths }) =>
        paths.filter((path) => isReopenedOnCount(path.at(-1)!)),
      )
      expect(reopened.length).toBeGreaterThan(0)
    })
  })
}
