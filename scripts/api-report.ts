/**
 * The public API report: one etc/<entry>.api.md per entry point of the
 * `exports` map, written by API Extractor from the built declarations.
 *
 *   npm run build && npm run api:report   rewrite the reports after a deliberate change
 *   npm run build && npm run api:check    fail when the API differs from the reports (CI)
 *
 * Both also fail when an exported type says `any`. Entry points come from
 * package.json, so a new one only needs its report written once.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor'
import type { ExtractorMessage } from '@microsoft/api-extractor'

const root = fileURLToPath(new URL('../', import.meta.url))
const check = process.argv.includes('--check')
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  name: string
  exports: Record<string, string | { types?: string }>
}

const reportFolder = path.join(root, 'etc')
const tempFolder = path.join(root, 'reports', 'api')
mkdirSync(reportFolder, { recursive: true })
rmSync(tempFolder, { recursive: true, force: true })
mkdirSync(tempFolder, { recursive: true })

/** `./web` → `askseam-web`: the report's file name. */
const reportName = (key: string) =>
  key === '.' ? manifest.name : `${manifest.name}-${key.slice(2).replaceAll('/', '-')}`

/**
 * A report without the source positions API Extractor puts in its warning
 * notes (`// src/x.ts:263:24 - (ae-forgotten-export) …`): an edit that moves a
 * line is no change of the API, and must not fail the check.
 */
const withoutPositions = (report: string) => report.replace(/^(\/\/ \S+\.ts):\d+:\d+ - /gm, '$1 - ')

let failed = false
/** Per report: what it exports, and the symbols its signatures use but it does not export. */
const exported = new Set<string>()
const borrowed = new Map<string, Set<string>>()
for (const [key, target] of Object.entries(manifest.exports)) {
  if (typeof target === 'string' || target.types === undefined) continue
  const declarations = path.join(root, target.types)
  if (!existsSync(declarations)) {
    console.error(`api: ${target.types} is missing: run npm run build first`)
    process.exit(1)
  }
  const name = reportName(key)
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: declarations,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            types: ['node'],
            skipLibCheck: true,
          },
          files: [declarations],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: `${name}.api.md`,
        reportFolder,
        reportTempFolder: tempFolder,
        includeForgottenExports: false,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          // A type that another entry point exports (UserQuestions in askseam/web's
          // signatures) is not forgotten; the report marks it either way.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // TSDoc completeness is a review matter (STYLE 13), not an API change.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: path.join(root, 'scripts', 'api-report.json'),
    packageJsonFullPath: path.join(root, 'package.json'),
  })
  const result = Extractor.invoke(config, {
    localBuild: !check,
    showVerboseMessages: false,
    messageCallback(message: ExtractorMessage) {
      // Said below, once the positions are left out of the comparison.
      if (
        message.messageId === 'console-api-report-copied' ||
        message.messageId === 'console-api-report-not-copied'
      ) {
        message.handled = true
      }
    },
  })
  const written = path.join(check ? tempFolder : reportFolder, `${name}.api.md`)
  const report = withoutPositions(readFileSync(written, 'utf8'))
  writeFileSync(written, report)
  const recorded = path.join(reportFolder, `${name}.api.md`)
  const changed =
    check && (!existsSync(recorded) || withoutPositions(readFileSync(recorded, 'utf8')) !== report)
  const anyLines = report
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line) && /\bany\b/.test(line))
  if (anyLines.length > 0) {
    failed = true
    console.error(`api: ${name} exports \`any\`:\n  ${anyLines.join('\n  ')}`)
  }
  for (const match of report.matchAll(
    /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum|namespace) (\w+)/gm,
  )) {
    exported.add(match[1]!)
  }
  borrowed.set(
    name,
    new Set([...report.matchAll(/The symbol "(\w+)" needs to be exported/g)].map((m) => m[1]!)),
  )
  if (changed) {
    failed = true
    console.error(
      `api: the public API of ${key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`} changed and etc/${name}.api.md did not: review the difference (reports/api/${name}.api.md) and run npm run api:report`,
    )
  } else if (result.errorCount > 0) {
    failed = true
    console.error(`api: ${name}: ${result.errorCount} error(s), ${result.warningCount} warning(s)`)
  }
}
// A signature may use a type that another entry point exports (askseam/web's
// UserQuestions comes from askseam); one no entry point exports is a hole.
for (const [name, symbols] of borrowed) {
  const missing = [...symbols].filter((symbol) => !exported.has(symbol))
  if (missing.length > 0) {
    failed = true
    console.error(`api: ${name} uses types no entry point exports: ${missing.join(', ')}`)
  }
}
if (failed) process.exit(1)
console.log(`api: ${check ? 'the reports match the public API' : 'reports written to etc/'}`)
