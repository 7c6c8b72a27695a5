import { Server } from '@modelcontextprotocol/server'
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio'
import { createMemoryStore, createUserQuestions } from 'askseam'
import { createRoundTrips, serveTools } from 'askseam/mcp'

// A fleet shares a durable store (askseam/postgres) and one secret of 32 bytes or more.
const store = createMemoryStore()
const seam = createUserQuestions({ store })
const rounds = createRoundTrips({
  seam,
  store,
  secret: process.env.MCP_STATE_SECRET ?? 'a development secret, 32 bytes or more',
})

serveStdio(
  () => {
    const server = new Server(
      { name: 'my-agent', version: '1.0.0' },
      { capabilities: { tools: {} } },
    )
    serveTools(server, rounds, [
      {
        name: 'deploy',
        description: 'Deploys after asking where.',
        handler: async (asking) => {
          const { answers } = await asking.ask({
            questions: [
              {
                id: 'region',
                question: 'Where to?',
                options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
              },
            ],
          })
          const region = answers[0]?.selected[0] ?? 'the default region'
          return { content: [{ type: 'text', text: `Deploying to ${region}` }] }
        },
      },
    ])
    return server
  },
  { legacy: 'reject', transport: new StdioServerTransport() },
)
