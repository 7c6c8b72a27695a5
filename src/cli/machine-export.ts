import type { AnyStateMachine, AnyStateNode } from 'xstate'

type Transition = {
  eventType: string
  guard?: unknown
  target?: readonly AnyStateNode[] | undefined
  actions?: readonly unknown[]
  delay?: unknown
}

const mermaidId = (node: AnyStateNode) => node.id.replace(/[^A-Za-z0-9_]/g, '_')

function nameOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string'
  ) {
    return (value as { type: string }).type
  }
  return undefined
}

function eventLabel(node: AnyStateNode, transition: Transition): string {
  const { eventType } = transition
  if (eventType === '') return 'always'
  if (eventType.startsWith('xstate.after.'))
    return `after ${String(transition.delay ?? eventType.split('.')[2])}`
  const invoked = node.invoke.find((definition) => eventType.endsWith(`.actor.${definition.id}`))
  if (invoked !== undefined && eventType.startsWith('xstate.done.actor.'))
    return `done: ${nameOf(invoked.src)}`
  if (invoked !== undefined && eventType.startsWith('xstate.error.actor.'))
    return `error: ${nameOf(invoked.src)}`
  return eventType
}

function transitionLine(node: AnyStateNode, transition: Transition): string | undefined {
  const target = transition.target?.[0]
  if (target === undefined) return undefined
  const guard = nameOf(transition.guard)
  const actions = (transition.actions ?? []).map(nameOf).filter((name) => name !== undefined)
  let label = eventLabel(node, transition)
  if (guard !== undefined) label += ` [${guard}]`
  if (actions.length > 0) label += ` / ${actions.join(', ')}`
  return `${mermaidId(node)} --> ${mermaidId(target)} : ${label}`
}

function renderNode(node: AnyStateNode, indent: string, lines: string[], edges: string[]): void {
  const children = Object.values(node.states) as AnyStateNode[]
  const entry = node.entry
    .map(nameOf)
    .filter((name) => name !== undefined && !name.startsWith('xstate.'))
  const invokes = node.invoke
    .map((definition) => nameOf(definition.src))
    .filter((name) => name !== undefined)
  const notes = [
    ...(entry.length > 0 ? [`entry / ${entry.join(', ')}`] : []),
    ...invokes.map((name) => `invoke ${name}`),
  ]
  if (children.length === 0) {
    lines.push(`${indent}state "${node.key}" as ${mermaidId(node)}`)
  } else {
    lines.push(`${indent}state "${node.key}" as ${mermaidId(node)} {`)
    if (node.type !== 'parallel') {
      const initial = node.initial?.target?.[0] as AnyStateNode | undefined
      if (initial !== undefined) lines.push(`${indent}  [*] --> ${mermaidId(initial)}`)
    }
    children.forEach((child, index) => {
      if (node.type === 'parallel' && index > 0) lines.push(`${indent}  --`)
      renderNode(child, `${indent}  `, lines, edges)
    })
    lines.push(`${indent}}`)
  }
  for (const note of notes) lines.push(`${indent}note right of ${mermaidId(node)} : ${note}`)
  if (node.type === 'final') edges.push(`${mermaidId(node)} --> [*]`)
  const transitions = [...node.transitions.values()].flat() as Transition[]
  for (const transition of [...transitions, ...((node.always ?? []) as Transition[])]) {
    const line = transitionLine(node, transition)
    if (line !== undefined) edges.push(line)
  }
}

/** A Mermaid `stateDiagram-v2` drawn from the machine's own state nodes. */
export function toMermaid(machine: AnyStateMachine): string {
  const lines: string[] = ['stateDiagram-v2']
  const edges: string[] = []
  const root = machine.root
  const initial = root.initial?.target?.[0] as AnyStateNode | undefined
  if (initial !== undefined) lines.push(`  [*] --> ${mermaidId(initial)}`)
  for (const child of Object.values(root.states) as AnyStateNode[])
    renderNode(child, '  ', lines, edges)
  for (const transition of [...root.transitions.values()].flat() as Transition[]) {
    const line = transitionLine(root, transition)
    if (line !== undefined) edges.push(line)
  }
  return [...lines, ...edges.map((edge) => `  ${edge}`)].join('\n')
}

/**
 * The machine's configuration as JSON, in the shape `createMachine` takes, so
 * it can be imported into Stately. Functions (context factories, inline
 * params, input mappers) have no JSON form and are left out; every
 * implementation is named, so the names carry the meaning.
 */
export function toStatelyConfig(machine: AnyStateMachine): string {
  return JSON.stringify(
    machine.config,
    (_key, value: unknown) => (typeof value === 'function' ? undefined : value),
    2,
  )
}
