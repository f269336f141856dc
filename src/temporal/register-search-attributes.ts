// Registers Gymflow's search attributes on a server that lacks them (the embedded server gets them
// at start; an existing cluster gets them here, once).
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from './search-attributes';

export async function ensureSearchAttributes(client: Client, namespace: string): Promise<void> {
  const operator = client.connection.operatorService;
  const existing = await operator.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((k) => !known.has(k.name));
  if (!missing.length) return;
  await operator.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((k) => [k.name, proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
  });
}
