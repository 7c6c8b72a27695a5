import {
  AskEndReasons,
  HarnessError,
  UserQuestionError,
  isStorableId,
} from '../vocabulary/index.js'
import type { Agent, AgentRegistry } from '../vocabulary/index.js'

/** A registry the runtime keeps up to date as agents start and end. */
export interface MutableAgentRegistry extends AgentRegistry {
  /**
   * Marks `agent` live, owned by `owner` (a live agent) or a runtime root when
   * `owner` is absent. Returns its exit: idempotent, and stale-safe (it never
   * removes a later instance that reuses the id). Throws `AGENT_ID_IN_USE`
   * when another instance with that id is live, `OWNER_NOT_LIVE` when the
   * owner is not live.
   */
  enter(agent: Agent, owner?: Agent): () => void
}

/**
 * Creates the registry the seam consults for caller authority: only the exact
 * live instance that is a runtime root may ask.
 *
 * @example
 * ```ts
 * const agents = createAgentRegistry()
 * const exit = agents.enter(rootAgent)
 * const seam = createUserQuestions({ agents })
 * ```
 */
export function createAgentRegistry(): MutableAgentRegistry {
  const live = new Map<string, Agent>()
  const owners = new WeakMap<Agent, Agent>()
  return {
    get: (id) => live.get(id),
    ownerOf: (agent) => (live.get(agent.id) === agent ? owners.get(agent) : undefined),
    enter(agent, owner) {
      if (
        typeof agent !== 'object' ||
        agent === null ||
        typeof agent.id !== 'string' ||
        agent.id === ''
      ) {
        throw new TypeError('enter(agent): agent must be an object with a non-blank string id')
      }
      if (!isStorableId(agent.id)) {
        throw new TypeError(
          'enter(agent): the agent id must not hold a NUL or an unpaired surrogate: no store keeps one as given',
        )
      }
      if (live.has(agent.id)) {
        throw new HarnessError(`an agent with id "${agent.id}" is already live`, 'AGENT_ID_IN_USE')
      }
      if (owner !== undefined && live.get(owner.id) !== owner) {
        throw new HarnessError(
          `the owner "${owner.id}" of "${agent.id}" is not live`,
          'OWNER_NOT_LIVE',
        )
      }
      live.set(agent.id, agent)
      if (owner === undefined) owners.delete(agent)
      else owners.set(agent, owner)
      return () => {
        if (live.get(agent.id) === agent) live.delete(agent.id)
      }
    },
  }
}

/** The part of the seam's options that {@link checkCaller} reads. */
export interface CallerPolicy {
  /** An ask without `agent` is `CALLER_NOT_LIVE`. @default false */
  requireAgent?: boolean | undefined
}

/**
 * The caller-authority check of DESIGN §3: `CALLER_NOT_LIVE` unless `agent` is
 * the registry's exact live instance, then `DELEGATED_CALLER` if it is owned.
 * Lineage is not authority: only the registry's present word counts. An ask
 * without `agent` passes unless the policy requires one, so a subagent cannot
 * reach the human by leaving `agent` out.
 */
export function checkCaller(
  agents: AgentRegistry | undefined,
  agent: unknown,
  policy: CallerPolicy = {},
): void {
  if (agent === undefined) {
    if (policy.requireAgent !== true) return
    throw new UserQuestionError(
      'this seam requires the asking agent (requireAgent) and the ask names none: pass the live agent that asks',
      'CALLER_NOT_LIVE',
      { details: { reason: AskEndReasons.NO_AGENT } },
    )
  }
  const id =
    typeof agent === 'object' && agent !== null ? (agent as { id?: unknown }).id : undefined
  const shown = typeof id === 'string' ? `"${id}"` : 'without an id'
  if (agents === undefined) {
    throw new UserQuestionError(
      `the caller agent ${shown} cannot be checked: this seam has no agent registry`,
      'CALLER_NOT_LIVE',
      { details: { reason: AskEndReasons.NO_REGISTRY } },
    )
  }
  if (typeof id !== 'string' || agents.get(id) !== agent) {
    throw new UserQuestionError(
      `the caller agent ${shown} is not the live instance`,
      'CALLER_NOT_LIVE',
      {
        details:
          typeof id === 'string'
            ? { agentId: id, reason: AskEndReasons.NOT_LIVE }
            : { reason: AskEndReasons.NOT_LIVE },
      },
    )
  }
  if (!isStorableId(id)) {
    // askseam's registry refuses such an id at enter(); a registry of one's own may not.
    throw new UserQuestionError(
      'the caller agent’s id holds a NUL or an unpaired surrogate: no store keeps it as the ask’s agentId',
      'INVALID_REQUEST',
      { details: { field: 'agent' } },
    )
  }
  const owner = agents.ownerOf(agent as { id: string })
  if (owner !== undefined) {
    throw new UserQuestionError(
      `agent "${id}" is a subagent of "${owner.id}" and has no human to ask: put the question in its result`,
      'DELEGATED_CALLER',
      { details: { agentId: id, ownerId: owner.id } },
    )
  }
}
