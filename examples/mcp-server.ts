import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { createUserQuestions } from 'askseam'
import { createElicitationProvider, keepAlive } from 'askseam/mcp'

const server = new McpServer({ name: 'my-agent', version: '1.0.0' })
const seam = createUserQuestions()
// Create the provider before connecting, so it sees the protocol version the client negotiates.
seam.registerProvider(createElicitationProvider({ server }))
server.registerTool('deploy', { description: 'Deploys after asking where.' }, (extra) =>
  // Progress every 10 s while the human thinks, so the client's request timeout does not cut them off.
  keepAlive(extra, async () => {
    const { answers } = await seam.ask({
      questions: [
        {
          id: 'region',
          question: 'Where to?',
          options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
        },
      ],
      signal: extra.signal,
    })
    return {
      content: [
        { type: 'text', text: `Deploying to ${answers[0]?.selected[0] ?? 'the default region'}` },
      ],
    }
  }),
)
await server.connect(new StdioServerTransport())
