// Reading a harness's stdout back: JSON event lines where it prints them, tolerant of a run cut off
// mid-line (a timed-out harness keeps what it printed), plain text otherwise.
import type { HarnessReport, HarnessToolCall } from './types';

/** Every line of stdout that parses as a JSON object; other lines are left out. */
export function jsonLines(stdout: string): Record<string, any>[] {
  const objects: Record<string, any>[] = [];
  for (const line of stdout.split('\n')) {
    const text = line.trim();
    if (!text.startsWith('{')) continue;
    try {
      const value = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value)) objects.push(value);
    } catch {
      // A line cut off by a timeout, or a harness's stray log line: not an event.
    }
  }
  return objects;
}

/** The last JSON object in stdout (a harness that prints one envelope, possibly after log lines). */
export function lastJsonObject(stdout: string): Record<string, any> | undefined {
  const lines = jsonLines(stdout);
  if (lines.length > 0) return lines.at(-1);
  const start = stdout.indexOf('{');
  if (start < 0) return undefined;
  try {
    const value = JSON.parse(stdout.slice(start));
    return value && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

export function textReport(stdout: string): HarnessReport {
  return { finalText: stdout.trim(), toolCalls: [] };
}

export function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? {});
}

export function toolCall(name: unknown, input: unknown, output?: unknown): HarnessToolCall {
  return { name: String(name ?? 'unknown'), arguments: argumentsText(input), ...(output === undefined ? {} : { output: typeof output === 'string' ? output : JSON.stringify(output) }) };
}
