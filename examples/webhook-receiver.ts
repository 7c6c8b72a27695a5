import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'
import type { WebhookPayload } from 'askseam/notify'

// Verifies askseam's webhooks and posts each waiting question to a chat channel.
const verifier = new Webhook(process.env.ASKSEAM_WEBHOOK_SECRET ?? '')
const chat = process.env.CHAT_WEBHOOK_URL ?? ''
const port = Number(process.env.PORT ?? 8787)

const server = createServer((request, response) => {
  let body = ''
  request.on('data', (chunk: Buffer) => (body += chunk.toString()))
  request.on('end', async () => {
    try {
      const headers = request.headers as Record<string, string>
      const event = verifier.verify(body, headers) as WebhookPayload
      if (event.type !== 'ask.settled') {
        const asked = event.data.questions.map((item) => item.question).join(' · ')
        const text = `${event.type}: ${asked} ${event.data.link ?? ''}`.trim()
        const posted = await fetch(chat, { method: 'POST', body: JSON.stringify({ text }) })
        if (!posted.ok) throw new Error(`the chat answered ${posted.status}`)
      }
      response.writeHead(204).end()
    } catch {
      response.writeHead(400).end() // askseam tries again later
    }
  })
})
server.listen(port, '127.0.0.1', () => console.log(`receiving on port ${port}`))
