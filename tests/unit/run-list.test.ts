// `gym eval list` filters: an environment by name whatever its settings, a model with or without its
// backend, and a status that tells a terminated or paused run from one that is running.
import { describe, expect, it } from 'vitest';
import { parseRunStatus, rowMatches, rowStatus, type RunRow } from '../../src/runs/list';

const row = (over: Partial<RunRow>): RunRow => ({ run: 'r', workflow_id: 'w', status: 'completed', env: 'mcqa', agent: 'simple_agent', model: 'openai:gpt-4.1', started: '', folder: '', ...over });

describe('run list filters', () => {
  it('match an environment by name, with or without its settings, and nothing that merely shares a prefix', () => {
    expect(rowMatches(row({ env: 'mcqa(prompt="x")' }), { env: 'mcqa' })).toBe(true);
    expect(rowMatches(row({ env: 'mcqa' }), { env: 'mcqa' })).toBe(true);
    expect(rowMatches(row({ env: 'mcqa_v2' }), { env: 'mcqa' })).toBe(false);
    expect(rowMatches(row({ env: 'mcqa(prompt="x")' }), { env: 'mcqa(prompt="x")' })).toBe(true);
  });

  it('match a model by its label or its name after the backend', () => {
    expect(rowMatches(row({}), { model: 'gpt-4.1' })).toBe(true);
    expect(rowMatches(row({}), { model: 'openai:gpt-4.1' })).toBe(true);
    expect(rowMatches(row({}), { model: 'gpt-4' })).toBe(false);
    expect(rowMatches(row({}), { model: 'mock:gpt-4.1' })).toBe(false);
  });

  it('combine every filter given', () => {
    expect(rowMatches(row({}), { env: 'mcqa', agent: 'simple_agent', status: 'completed' })).toBe(true);
    expect(rowMatches(row({}), { env: 'mcqa', agent: 'other' })).toBe(false);
    expect(rowMatches(row({}), { status: 'failed' })).toBe(false);
  });

  it('take how a run ended from Temporal, and paused from GymStatus while it runs', () => {
    expect(rowStatus('TERMINATED', 'running')).toBe('terminated');
    expect(rowStatus('CANCELLED', 'cancelled')).toBe('cancelled');
    expect(rowStatus('RUNNING', 'paused')).toBe('paused');
    expect(rowStatus('RUNNING', undefined)).toBe('running');
    // Cancelled gracefully: the workflow completed once its rollouts in flight had finished.
    expect(rowStatus('COMPLETED', 'cancelled')).toBe('cancelled');
    expect(rowStatus('COMPLETED', 'completed')).toBe('completed');
  });

  it('name the allowed statuses for an unknown one', () => {
    expect(parseRunStatus('Completed')).toBe('completed');
    expect(parseRunStatus('canceled')).toBe('cancelled');
    expect(() => parseRunStatus('done')).toThrow(/--status must be one of running, paused, completed, failed, cancelled, terminated, timed_out, got done/);
  });
});
