import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { createUserQuestions } from '../../src/protocol/index.js'
import { startWebConsole } from '../../src/providers/web/index.js'
import type { WebConsole, WebConsoleOptions } from '../../src/providers/web/index.js'

// Issue 10, item 8: the web console did not check the Host header (a page
// on a DNS-rebinding name that resolves to 127.0.0.1 is same-origin with the
// console in the browser's eyes) and accepted a weak caller-supplied token.

const consoles: WebConsole[] = []
afterEach(async () => {
  await Promise.all(consoles.splice(0).map((web) => web.close()))
})

async function start(options: Partial<WebConsoleOptions> = {}) {
  const web = await startWebConsole({ seam: createUserQuestions(), ...options })
  consoles.push(web)
  return web
}

/** A GET with an explicit Host header; resolves with the status and body. */
function get(url: string, host: string): Promise<{ status: number; body: string }> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        headers: { Host: host },
      },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      },
    )
    outgoing.on('error', reject)
    outgoing.end()
  })
}

/** The HTTP status a WebSocket upgrade with this Host header gets (101 when it opens). */
function upgradeStatus(wsUrl: string, host: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(wsUrl, { headers: { Host: host } })
    ws.once('open', () => {
      ws.terminate()
      resolve(101)
    })
    ws.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0)
      ws.terminate()
    })
    ws.once('error', () => resolve(0))
  })
}

describe('the Host header', () => {
  it('serves loopback names and IP literals on its own port', async () => {
    const web = await start()
    const { port } = new URL(web.url)
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      `10.0.0.7:${port}`,
    ]) {
      expect((await get(web.url, host)).status).toBe(200)
    }
    expect(await upgradeStatus(web.wsUrl, `localhost:${port}`)).toBe(101)
  })

  it('refuses a DNS-rebinding name with 421 before serving the page, the assets or the socket', async () => {
    const web = await start()
    const { port, origin } = new URL(web.url)
    for (const host of [
      `attacker.example:${port}`,
      `localhost.attacker.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
    ]) {
      const page = await get(web.url, host)
      expect(page.status).toBe(421)
      expect(page.body).not.toContain('<script')
      expect((await get(`${origin}/console.js`, host)).status).toBe(421)
      expect(await upgradeStatus(web.wsUrl, host)).toBe(421)
    }
  })

  it('refuses the right name on another port', async () => {
    const web = await start()
    const { port } = new URL(web.url)
    expect((await get(web.url, `127.0.0.1:${Number(port) + 1}`)).status).toBe(421)
  })

  it('serves a name given in hosts', async () => {
    const web = await start({ hosts: ['console.example.internal:8443'] })
    expect((await get(web.url, 'console.example.internal:8443')).status).toBe(200)
    expect((await get(web.url, 'other.example.internal:8443')).status).toBe(421)
  })
})

describe('a caller-supplied token', () => {
  it.each([
    ['one character', 'a', /too short/],
    ['fifteen characters', 'abcdefghijklmno', /too short/],
    ['sixteen of one character', 'a'.repeat(16), /too predictable/],
    ['a repeated pair', 'ab'.repeat(12), /too predictable/],
  ])('refuses %s, naming the rule', async (_name, token, rule) => {
    await expect(startWebConsole({ seam: createUserQuestions(), token })).rejects.toThrow(TypeError)
    await expect(startWebConsole({ seam: createUserQuestions(), token })).rejects.toThrow(rule)
  })

  it('accepts a passphrase and sixteen random hex digits, and the seam stays free after a refusal', async () => {
    const seam = createUserQuestions()
    await expect(startWebConsole({ seam, token: 'a' })).rejects.toThrow(TypeError)
    // The refusal came before the relay registered: the seam takes a console now.
    const web = await startWebConsole({ seam, token: 'correct horse battery staple' })
    consoles.push(web)
    expect(web.token).toBe('correct horse battery staple')
    const hex = await start({ token: '9f86d081884c7d65' })
    expect(hex.token).toBe('9f86d081884c7d65')
  })
})
