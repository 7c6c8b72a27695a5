// Runs the askseam MCP server on stdio from a source checkout (`node --import tsx src/cli/mcp-server-main.ts`);
// the installed command is `askseam mcp`.
import { runMcpServer } from './mcp-server.js'

runMcpServer().catch((error: unknown) => {
  process.stderr.write(
    `askseam mcp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  )
  process.exitCode = 1
})
