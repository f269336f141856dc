// Token ids and log-probs on conversation items are checked element by element (in one loop, for speed):
// every bad element is still refused, with the field named.
import { describe, expect, it } from 'vitest';
import { ConversationItem } from '../../src/schemas/responses';

const message = (extra: Record<string, unknown>) => ({ role: 'assistant', content: 'hi', ...extra });

describe('training token fields', () => {
  it('accept integer ids and finite log-probs, keeping them as given', () => {
    const parsed = ConversationItem.parse(message({ prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5] }));
    expect(parsed).toMatchObject({ prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5] });
  });

  it.each([
    ['prompt_token_ids', [1, 2.5]],
    ['generation_token_ids', [1, '2']],
    ['generation_token_ids', 'not an array'],
    ['generation_log_probs', [-0.1, null]],
  ])('refuse a bad %s', (field, value) => {
    const result = ConversationItem.safeParse(message({ [field]: value }));
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain(field);
  });
});
