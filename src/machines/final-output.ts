/**
 * The output of a machine whose final states each declare their own
 * (`output` on the state): how the machine ended lives in the state it ended
 * in, not in a context field recorded beside it. XState hands the root the
 * final state's output untyped; this names its type, in one place.
 */
export function finalStateOutput<TOutput>({ event }: { event: { output: unknown } }): TOutput {
  return event.output as TOutput
}
