// Registers Gymflow's search attributes on a server that lacks them (the embedded server gets them
// at start; an existing cluster gets them here, once), and waits until the server accepts them.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { GymError } from '../errors';
import { grpcStatusOf } from './connect-errors';
import { SEARCH_ATTRIBUTES } from './search-attributes';

const INVALID_ARGUMENT = 3;
/**
 * A cluster serves a new attribute once its caches have it: on SQL visibility the namespace cache (2 s by
 * default), on Elasticsearch the search-attribute cache (60 s), unless a dev setting forces a refresh.
 */
const SERVED_WITHIN_MS = 150_000;

export async function ensureSearchAttributes(client: Client, namespace: string, servedWithinMs = SERVED_WITHIN_MS): Promise<void> {
  const operator = client.connection.operatorService;
  const existing = await operator.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((k) => !known.has(k.name));
  if (missing.length) {
    await operator.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
    });
  }
  await awaitServed(client, namespace, servedWithinMs);
}

/**
 * The list above reads the namespace's stored record, which has an attribute the moment it is added (by
 * this process or another one just before); starting a workflow with it is checked against the caches. A
 * visibility query naming every attribute is checked the same way, so it fails until the run would start.
 */
async function awaitServed(client: Client, namespace: string, withinMs: number): Promise<void> {
  const query = SEARCH_ATTRIBUTES.map((k) => `${k.name} = "gymflow-probe"`).join(' AND ');
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      await client.workflowService.countWorkflowExecutions({ namespace, query });
      return;
    } catch (e) {
      const status = grpcStatusOf(e);
      if (status?.code !== INVALID_ARGUMENT) throw e;
      if (Date.now() > deadline) {
        throw new GymError(
          'SETUP_FAILED',
          `Temporal does not accept Gymflow's search attributes in namespace "${namespace}" ${Math.round(withinMs / 1000)} s after they were registered: ${status.details}`,
        );
      }
    }
    await sleep(500);
  }
}
