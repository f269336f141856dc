// Parsed answers as the schema validator sees them. Python parsers also return values JSON has no
// type for (YAML and TOML dates, bytes, sets); jsonschema rejects them under every "type", so they
// are kept as one opaque marker that no type, enum or const accepts either.
export const FOREIGN: unique symbol = Symbol('non-JSON value');

export type Parsed = null | boolean | number | string | typeof FOREIGN | Parsed[] | { [key: string]: Parsed };
