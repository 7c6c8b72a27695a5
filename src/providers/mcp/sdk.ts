import { importPeer } from '../../protocol/internal.js'

/**
 * The MCP SDK's protocol types module, the one place askseam/mcp loads the SDK
 * at run time: without `@modelcontextprotocol/sdk` installed, importing the
 * entry point throws one line naming it. Everything else takes it from here
 * (and its types through `import type`), since a static import anywhere in the
 * entry's graph would fail first, with Node's resolution error.
 */
export const mcpTypes = await importPeer(
  'askseam/mcp',
  '@modelcontextprotocol/sdk',
  () => import('@modelcontextprotocol/sdk/types.js'),
)
