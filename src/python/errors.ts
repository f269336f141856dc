// Python exceptions raised by the ports (TypeError, ValueError, re.error, json.JSONDecodeError, …): callers
// pick the `except` clause that would catch one by its kind, and Python's message reaches outputs verbatim.

export type PyErrorKind = 'TypeError' | 'ValueError' | 'AttributeError' | 'IndexError' | 'ZeroDivisionError' | 'OverflowError' | 're.error' | 'JSONDecodeError';

/** A Python exception; `kind` is its class as Python names it, `message` is `str(exception)`. */
export class PyError extends Error {
  constructor(
    readonly kind: PyErrorKind,
    message: string,
  ) {
    super(message);
    this.name = kind;
  }
}
