/**
 * Imports the module named on the command line and prints, as one JSON line,
 * the packages whose files Node loaded for it: what an entry point loads at
 * run time, not what its source names.
 *
 *   node --import tsx test/package/loaded-packages.ts <module path>
 */
import { register } from 'node:module'
import { pathToFileURL } from 'node:url'
import { MessageChannel } from 'node:worker_threads'

const hooks = `
let port
export function initialize(data) { port = data.port }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  port.postMessage(resolved.url)
  return resolved
}`
const { port1, port2 } = new MessageChannel()
const urls: string[] = []
port1.on('message', (url: string) => urls.push(url))
register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url, {
  data: { port: port2 },
  transferList: [port2],
})

await import(pathToFileURL(process.argv[2] as string).href)
// The hooks report in order on one port: once this import's URL is in, every earlier one is.
const sentinel = 'data:text/javascript,export default 1'
await import(sentinel)
while (!urls.includes(sentinel)) await new Promise((resolve) => setImmediate(resolve))
port1.close()

const packages = new Set<string>()
for (const url of urls) {
  const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (match !== null) packages.add(match[1] as string)
}
process.stdout.write(`${JSON.stringify([...packages].sort())}\n`)
