/**
 * The size limits of issue 21: no file in src/ over 400 lines, and no
 * function, arrow function, method or closure over 150 lines, a closure's
 * length counting its whole body, the functions nested in it included.
 *
 *   npm run sizes                     list every offender in src/ (file, name, start–end line); exit 1 if any
 *   npx tsx scripts/sizes.ts FOLDER   the same for another folder
 *
 * Lengths come from the TypeScript parser, so a brace inside a string or a
 * comment never moves a boundary: a function runs from its first token (its
 * TSDoc excluded) to its closing token.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const maxFileLines = 400
const maxFunctionLines = 150

const root = fileURLToPath(new URL('../', import.meta.url))
const sourceRoot = path.resolve(process.argv[2] ?? path.join(root, 'src'))
const sourceExtensions = /\.(c|m)?(t|j)sx?$/

/** Every source file under `folder`, in a stable order. */
const sourceFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) return sourceFiles(full)
      return sourceExtensions.test(entry.name) ? [full] : []
    })

/** Lines as an editor numbers them: a final newline does not start another. */
const lineCount = (text: string) => {
  if (text === '') return 0
  const lines = text.split('\n').length
  return text.endsWith('\n') ? lines - 1 : lines
}

type FunctionLike =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration

const isFunctionLike = (node: ts.Node): node is FunctionLike =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node)

const propertyName = (name: ts.PropertyName | ts.BindingName, file: ts.SourceFile) =>
  ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)
    ? name.text
    : name.getText(file)

/** The name a reader finds the function by: its own, or what holds it. */
const functionName = (node: FunctionLike, file: ts.SourceFile): string => {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  if (node.name !== undefined) return propertyName(node.name, file)
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
    return propertyName(parent.name, file)
  if (ts.isPropertyDeclaration(parent)) return propertyName(parent.name, file)
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const callee = parent.expression.getText(file)
    const shown = callee.length > 40 ? `${callee.slice(0, 40)}…` : callee
    return `<closure passed to ${ts.isNewExpression(parent) ? 'new ' : ''}${shown}>`
  }
  return '<closure>'
}

type Offender = { file: string; what: string; lines: number }

const offenders: Offender[] = []
for (const full of sourceFiles(sourceRoot)) {
  const relative = path.relative(process.cwd(), full)
  const text = readFileSync(full, 'utf8')
  const lines = lineCount(text)
  if (lines > maxFileLines) offenders.push({ file: relative, what: 'file', lines })
  const file = ts.createSourceFile(full, text, ts.ScriptTarget.Latest, true)
  const visit = (node: ts.Node) => {
    if (isFunctionLike(node) && node.body !== undefined) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line + 1
      const length = end - start + 1
      if (length > maxFunctionLines)
        offenders.push({
          file: relative,
          what: `${functionName(node, file)} (lines ${start}–${end})`,
          lines: length,
        })
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
}

for (const { file, what, lines } of offenders) console.log(`${file}: ${what}: ${lines} lines`)
if (offenders.length > 0) {
  console.error(
    `sizes: ${offenders.length} over the limits (files ${maxFileLines} lines, functions ${maxFunctionLines})`,
  )
  process.exit(1)
}
console.log(
  `sizes: every file in ${path.relative(process.cwd(), sourceRoot)}/ within ${maxFileLines} lines, every function within ${maxFunctionLines}`,
)
