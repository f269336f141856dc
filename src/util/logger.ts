// The product's logger: pino, JSON lines on stderr, quiet by default on the command line.
import pino, { type Logger } from 'pino';

export function createLogger(name: string, level = process.env.GYMFLOW_LOG_LEVEL ?? 'warn'): Logger {
  return pino({ name, level, redact: { paths: ['*.api_key', '*.apiKey', '*.authorization', 'headers.authorization'], censor: '[redacted]' } }, pino.destination(2));
}
