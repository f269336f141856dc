// Builds the OpenTelemetry Collector the trace tests run against (once; cached in .gymflow/bin).
import { ensureCollector } from '../tests/helpers/otel-collector';

const started = Date.now();
const binary = await ensureCollector((line) => process.stdout.write(`${line}\n`));
process.stdout.write(`OpenTelemetry Collector ready in ${Math.round((Date.now() - started) / 1000)} s: ${binary}\n`);
