/**
 * Every entry point of the package and the optional peers it loads: the one
 * table the packaging tests iterate (DESIGN §1). A new entry point adds one
 * line here, its `exports` entry, its peers in `peerDependencies` (optional in
 * `peerDependenciesMeta`, exact-pinned in `devDependencies`), and its API
 * report (`npm run api:report` writes etc/<name>.api.md).
 *
 * `peers` lists the packages the entry loads through `importPeer`, in the
 * order it loads them; `xstate` is the one runtime dependency and is implied.
 */
export interface EntryPoint {
  /** The specifier a user imports, e.g. `askseam/web`. */
  readonly entry: string
  /** The optional peer packages it needs, in load order. */
  readonly peers: readonly string[]
  /**
   * For a peer loaded by another entry point's module it builds on, that
   * entry point, which the one-line message names (an adapter loads zod
   * through askseam/tool).
   */
  readonly loadedBy?: Readonly<Record<string, string>>
  /**
   * Optional peers its types name but it never loads itself: the user's own
   * object of that package is passed in (askseam/mcp's `serveTools` takes an
   * SDK v2 `Server`). Declared as peers; importing the entry works without them.
   */
  readonly typesOnly?: readonly string[]
}

/** The one line that importing `entry` without `peer` prints. */
export function missingPeerLine(point: EntryPoint, peer: string): string {
  const entry = point.loadedBy?.[peer] ?? point.entry
  return `ERROR ${entry} needs the "${peer}" package: npm install ${peer}`
}

export const entryPoints: readonly EntryPoint[] = [
  { entry: 'askseam', peers: [] },
  { entry: 'askseam/machines', peers: [] },
  { entry: 'askseam/terminal', peers: ['marked'] },
  { entry: 'askseam/web', peers: ['ws'] },
  {
    entry: 'askseam/mcp',
    peers: ['@modelcontextprotocol/sdk'],
    typesOnly: ['@modelcontextprotocol/server'],
  },
  { entry: 'askseam/tool', peers: ['zod'] },
  { entry: 'askseam/sqlite', peers: ['better-sqlite3'] },
  { entry: 'askseam/postgres', peers: ['pg'] },
  { entry: 'askseam/store', peers: [] },
  { entry: 'askseam/ai-sdk', peers: ['zod', 'ai'], loadedBy: { zod: 'askseam/tool' } },
  {
    entry: 'askseam/openai-agents',
    peers: ['zod', '@openai/agents'],
    loadedBy: { zod: 'askseam/tool' },
  },
  {
    entry: 'askseam/langgraph',
    peers: ['zod', '@langchain/core'],
    loadedBy: { zod: 'askseam/tool' },
  },
  { entry: 'askseam/otel', peers: ['@opentelemetry/api'] },
  { entry: 'askseam/notify', peers: [] },
]

/** `askseam/web` → `./web`, the key of the `exports` map. */
export function exportsKey(entry: string): string {
  return entry === 'askseam' ? '.' : `./${entry.slice('askseam/'.length)}`
}

const caret = /^\^(\d+)(?:\.(\d+))?(?:\.(\d+))?$/

/**
 * The lowest version a peer range admits: peer ranges are caret ranges
 * (`^8.23.0`, `^12`), so that is the version the caret names, zeros filled in.
 */
export function lowestOf(range: string): string | undefined {
  const match = caret.exec(range.trim())
  if (match === null) return undefined
  return [match[1], match[2] ?? '0', match[3] ?? '0'].join('.')
}

/** Whether the caret range `range` admits the exact version `version`. */
export function admits(range: string, version: string): boolean {
  const lowest = lowestOf(range)?.split('.').map(Number)
  const wanted = version.split('.').map(Number)
  if (lowest === undefined || wanted.length !== 3) return false
  const [major, minor, patch] = lowest as [number, number, number]
  const [x, y, z] = wanted as [number, number, number]
  if (x !== major) return false
  // ^0.y pins the minor too, as npm reads it.
  if (major === 0 && y !== minor) return false
  return y > minor || (y === minor && z >= patch)
}
