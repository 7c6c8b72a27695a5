import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

/*
 * `askseam/machines` is built to be bundled: a UI that takes one machine
 * (the web console takes questionnaireMachine, consoleConnectionMachine and
 * consoleAskMachine)
 * must not carry the others. Each machine is `/* @__PURE__ *\/`, and so is
 * every call inside its definition; one that is not (a spread, a helper
 * called bare) keeps its whole machine in every bundle.
 */

const entry = fileURLToPath(new URL('../../src/machines/index.ts', import.meta.url))

/** Each machine's id, and the machines it runs as children (which its bundle must carry). */
const machines = {
  askMachine: 'ask',
  consoleAskMachine: 'consoleAsk',
  consoleConnectionMachine: 'consoleConnection',
  fleetMachine: 'fleet',
  keepAliveMachine: 'keepAlive',
  presentationMachine: 'presentation',
  questionnaireMachine: 'questionnaire',
  relayAskMachine: 'relayAsk',
  relayClientMachine: 'relayClient',
  seamMachine: 'seam',
  terminalQueueMachine: 'terminalQueue',
  webhookDeliveryMachine: 'webhookDelivery',
} as const
const children: Partial<Record<keyof typeof machines, string[]>> = {
  askMachine: ['presentation'],
}

/** The minified browser bundle of a module that uses `name` alone from askseam/machines. */
async function bundleOf(name: string): Promise<string> {
  const result = await build({
    stdin: {
      contents: `import { ${name} } from ${JSON.stringify(entry)}\nglobalThis.kept = ${name}\n`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    minify: true,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}

describe('askseam/machines in a bundle', () => {
  it.each(Object.entries(machines))(
    '%s alone leaves out every machine it does not run',
    async (name, id) => {
      const bundle = await bundleOf(name)
      const carried = [id, ...(children[name as keyof typeof machines] ?? [])]
      for (const each of carried) expect(bundle).toContain(`id:"${each}"`)
      const others = Object.values(machines).filter((other) => !carried.includes(other))
      expect(others.filter((other) => bundle.includes(`id:"${other}"`))).toEqual([])
    },
  )
})
