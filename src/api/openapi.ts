// The trigger API's OpenAPI 3.1 document, generated from the zod schemas the server validates with;
// served at GET /v1/openapi.json and committed as docs/api/openapi.json (a test keeps it current).
import { z } from 'zod';
import { ErrorBody, ListQuery, RunCreated, RunList, RunProgress, RunRequest, RunView, SteerAnswer } from './schemas';

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const error = (description: string) => ({ description, content: json('Error') });

const RUN_ID_PARAM = { name: 'id', in: 'path', required: true, description: 'the run id (run_id of POST /v1/runs)', schema: { type: 'string' } };
const COMMON_ERRORS = { '401': error('missing or wrong bearer token'), '503': error('the Temporal server does not answer') };

function steer(action: 'cancel' | 'pause' | 'resume', summary: string) {
  return {
    post: {
      operationId: `${action}Run`,
      summary,
      parameters: [RUN_ID_PARAM],
      responses: {
        '200': { description: 'sent to the run', content: json('SteerAnswer') },
        '404': error('no such run'),
        '409': error('the run is not running'),
        '415': error('a body that is not JSON'),
        ...COMMON_ERRORS,
      },
    },
  };
}

export function openApiDocument(): Record<string, unknown> {
  const query = jsonSchema(ListQuery, 'input') as { properties: Record<string, Record<string, unknown>> };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gymflow trigger API',
      version: '1',
      description: 'Start, watch and steer Gymflow eval runs from other services (docs/api.md). Every route but this document needs `Authorization: Bearer <token>`.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        RunRequest: jsonSchema(RunRequest, 'input'),
        RunCreated: jsonSchema(RunCreated, 'output'),
        RunView: jsonSchema(RunView, 'output'),
        RunList: jsonSchema(RunList, 'output'),
        RunProgress: jsonSchema(RunProgress, 'output'),
        SteerAnswer: jsonSchema(SteerAnswer, 'output'),
        Error: jsonSchema(ErrorBody, 'output'),
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/runs': {
        post: {
          operationId: 'startRun',
          summary: 'Start a run (once per request id)',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, description: 'the client request id; or request_id in the body', schema: { type: 'string' } }],
          requestBody: { required: true, content: json('RunRequest') },
          responses: {
            '201': { description: 'the run was started', content: json('RunCreated') },
            '200': { description: 'the request id (or the run folder) already had its run: nothing new was started', content: json('RunCreated') },
            '400': error('invalid settings; `field` names the one at fault'),
            '409': error('the request id came before with another body, or the folder holds another run'),
            '413': error('a body over 1 MiB'),
            '415': error('a body that is not JSON'),
            ...COMMON_ERRORS,
          },
        },
        get: {
          operationId: 'listRuns',
          summary: 'Runs the Temporal server knows, newest first (the filters of gym eval list)',
          parameters: Object.entries(query.properties).map(([name, schema]) => ({ name, in: 'query', required: false, schema })),
          responses: { '200': { description: 'the matching runs', content: json('RunList') }, '400': error('a bad filter'), ...COMMON_ERRORS },
        },
      },
      '/v1/runs/{id}': {
        get: {
          operationId: 'getRun',
          summary: 'A run: status, live progress while it runs, metrics once finished',
          parameters: [RUN_ID_PARAM],
          responses: { '200': { description: 'the run', content: json('RunView') }, '404': error('no such run'), ...COMMON_ERRORS },
        },
      },
      '/v1/runs/{id}/events': {
        get: {
          operationId: 'runEvents',
          summary: 'Server-sent events: `progress` (RunProgress) when it changes, `error` when a lookup fails, then one `end` (RunView) when the run ends',
          parameters: [RUN_ID_PARAM],
          responses: { '200': { description: 'the event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, '404': error('no such run'), ...COMMON_ERRORS },
        },
      },
      '/v1/runs/{id}/cancel': steer('cancel', 'Cancel the run (gym eval resume continues it later)'),
      '/v1/runs/{id}/pause': steer('pause', 'Stop starting rollouts; those in flight finish'),
      '/v1/runs/{id}/resume': steer('resume', 'Start rollouts again after a pause'),
      '/v1/openapi.json': { get: { operationId: 'openapi', summary: 'This document', security: [], responses: { '200': { description: 'OpenAPI 3.1' } } } },
    },
  };
}
