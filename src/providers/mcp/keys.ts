/**
 * Property names of the elicitation form. MCP clients turn property names into
 * form field ids, so a question id that is not a plain name (spaces, dots,
 * non-ASCII, `__proto__`, very long) gets a generated key instead, and the
 * provider maps it back by the table it built.
 */

/** A question id used as a property name as it is: letters, digits, `_` and `-`, at most 48. */
const PLAIN_ID = /^[A-Za-z_][A-Za-z0-9_-]{0,47}$/

/** Whether `id` can be a form property name unchanged. */
export function isPlainPropertyName(id: string): boolean {
  // `in` also catches names such as `constructor` that a plain object already answers to.
  return PLAIN_ID.test(id) && !(id in Object.prototype)
}

/** Hands out unique property names, preferring the one asked for. */
export class PropertyNames {
  readonly #taken = new Set<string>()

  /** Whether `name` is already in use. */
  has(name: string): boolean {
    return this.#taken.has(name)
  }

  /** Takes `name`, or `name_2`, `name_3`, … when it is taken. `name` must be a plain name. */
  claim(name: string): string {
    let candidate = name
    for (let suffix = 2; this.#taken.has(candidate); suffix += 1) candidate = `${name}_${suffix}`
    this.#taken.add(candidate)
    return candidate
  }
}
