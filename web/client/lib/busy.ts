// The dashboard's "disable, try, re-enable" around a request a control started: so a second click cannot
// send it twice, and the control comes back whatever the outcome.

/** Something that can be disabled: a button, an input, a fieldset. */
export interface Disableable {
  disabled: boolean;
}

/**
 * Runs `action` with `controls` disabled, then gives each control back the state it had (a control that was
 * already disabled stays so). Resolves or rejects as `action` does.
 */
export async function whileBusy<T>(controls: Iterable<Disableable>, action: () => Promise<T>): Promise<T> {
  const held = [...controls].map((control) => ({ control, was: control.disabled }));
  for (const { control } of held) control.disabled = true;
  try {
    return await action();
  } finally {
    for (const { control, was } of held) control.disabled = was;
  }
}
