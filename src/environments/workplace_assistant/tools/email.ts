// The email tools (NeMo Gym's EmailTool). Every method body sits in Python try/except blocks, so most
// failures come back as "Error <doing something>: <message>" instead of reaching the route.
import { PyError } from '../../../python/errors';
import { pySplit } from '../../../python/str';
import { callLower, pyIn, pyStr, truthy } from '../../../python/values';
import { appendRow, inColumn, records, type Cells, type Workspace } from '../tables';
import { toTimestamp } from '../timestamp';
import { firstMatch, nextId, paginate, withoutMatches, type ToolOutcome, type WorkplaceTool } from '../toolbox';

/** The environment's frozen clock, as str(pd.Timestamp) prints it. */
export const CURRENT_TIME = '2023-11-30 23:59:00';

/** Runs a method body inside `try: … except Exception as e: return f"{prefix}: {e}"`. */
function guarded(prefix: string, body: () => ToolOutcome): ToolOutcome {
  try {
    return body();
  } catch (error) {
    if (error instanceof PyError) return { output: `${prefix}: ${error.message}` };
    throw error;
  }
}

function recipientProblem(recipient: unknown): string | undefined {
  // Outside the try block in Python: a non-iterable recipient raises to the route.
  if (!pyIn('@', recipient) || !pyIn('.', recipient)) return 'Invalid recipient email address.';
  return undefined;
}

function send(ws: Workspace, recipient: unknown, subject: unknown, body: unknown): ToolOutcome {
  if (!truthy(recipient) || !truthy(subject) || !truthy(body)) return { output: 'Recipient, subject, or body not provided.' };
  const problem = recipientProblem(recipient);
  if (problem) return { output: problem };
  return guarded('Error sending email', () => {
    const to = callLower(recipient);
    const emailId = ws.emails.rows.length > 0 ? nextId(ws.emails, 'email_id') : '1';
    const row = { email_id: emailId, 'inbox/outbox': 'outbox', 'sender/recipient': to, subject, sent_datetime: CURRENT_TIME, body };
    return { output: 'Email sent successfully.', workspace: { ...ws, emails: appendRow(ws.emails, row) } };
  });
}

/**
 * Newest first, by the parsed send time. pandas sorts with numpy's unstable quicksort; on x86-64 it puts
 * emails sent at the same moment (those sent during the episode, at the frozen clock) latest row first.
 */
function newestFirst(emails: readonly Cells[]): Cells[] {
  const keyed = emails.map((e) => ({ e, t: toTimestamp(e.sent_datetime)?.ns ?? 0n })).reverse();
  return keyed.sort((a, b) => (a.t < b.t ? 1 : a.t > b.t ? -1 : 0)).map((k) => k.e);
}

export const emailTools: Record<string, WorkplaceTool> = {
  email_get_email_information_by_id: {
    method: 'EmailTool.get_email_information_by_id',
    params: { email_id: null, field: null },
    run(ws, { email_id, field }) {
      if (!truthy(email_id)) return { output: 'Email ID not provided.' };
      if (!truthy(field)) return { output: 'Field not provided.' };
      return guarded('Error retrieving email information', () => {
        const email = firstMatch(ws.emails, 'email_id', email_id);
        if (!email) return { output: 'Email not found.' };
        if (pyIn(field, email)) return { output: { [field as string]: email[field as string] } };
        return { output: `Field '${pyStr(field)}' not found. Available fields: ${Object.keys(email).join(', ')}` };
      });
    },
  },
  email_search_emails: {
    method: 'EmailTool.search_emails',
    params: { query: '', date_min: null, date_max: null, page: 1, page_size: 5 },
    run(ws, { query, date_min, date_max, page, page_size }) {
      return guarded('Error searching emails', () => {
        const words = pySplit(callLower(query));
        const matching = records(ws.emails).filter((e) => {
          const text = `${pyStr(e.subject)} ${pyStr(e.body)} ${pyStr(e['sender/recipient'])}`.toLowerCase();
          return words.every((w) => text.includes(w));
        });
        let emails = newestFirst(matching);
        // Python parses the bound once per email, so a bad bound only fails when something matched.
        const day = (value: unknown) => toTimestamp(value)?.date ?? '';
        if (truthy(date_min)) emails = emails.filter((e) => day(e.sent_datetime) >= day(date_min));
        if (truthy(date_max)) emails = emails.filter((e) => day(e.sent_datetime) <= day(date_max));
        const { items, page: current, totalPages } = paginate(emails, page, page_size);
        if (emails.length === 0) return { output: 'No emails found.' };
        return {
          output: {
            emails: items,
            pagination: { total_emails: emails.length, page: current, page_size, total_pages: totalPages },
          },
        };
      });
    },
  },
  email_send_email: {
    method: 'EmailTool.send_email',
    params: { recipient: null, subject: null, body: null },
    run: (ws, { recipient, subject, body }) => send(ws, recipient, subject, body),
  },
  email_delete_email: {
    method: 'EmailTool.delete_email',
    params: { email_id: null },
    run(ws, { email_id }) {
      if (!truthy(email_id)) return { output: 'Email ID not provided.' };
      return guarded('Error deleting email', () => {
        if (!inColumn(email_id, ws.emails, 'email_id')) return { output: 'Email not found.' };
        return { output: 'Email deleted successfully.', workspace: { ...ws, emails: withoutMatches(ws.emails, 'email_id', email_id) } };
      });
    },
  },
  email_forward_email: {
    method: 'EmailTool.forward_email',
    params: { email_id: null, recipient: null },
    run(ws, { email_id, recipient }) {
      if (!truthy(email_id) || !truthy(recipient)) return { output: 'Email ID or recipient not provided.' };
      const problem = recipientProblem(recipient);
      if (problem) return { output: problem };
      return guarded('Error forwarding email', () => {
        if (!inColumn(email_id, ws.emails, 'email_id')) return { output: 'Email not found.' };
        const to = callLower(recipient);
        const email = firstMatch(ws.emails, 'email_id', email_id)!;
        return relay(send(ws, to, `FW: ${pyStr(email.subject)}`, email.body), 'Email forwarded successfully.');
      });
    },
  },
  email_reply_email: {
    method: 'EmailTool.reply_email',
    params: { email_id: null, body: null },
    run(ws, { email_id, body }) {
      if (!truthy(email_id) || !truthy(body)) return { output: 'Email ID or body not provided.' };
      return guarded('Error replying to email', () => {
        if (!inColumn(email_id, ws.emails, 'email_id')) return { output: 'Email not found.' };
        const email = firstMatch(ws.emails, 'email_id', email_id)!;
        return relay(send(ws, email['sender/recipient'], `RE: ${pyStr(email.subject)}`, body), 'Email replied successfully.');
      });
    },
  },
};

/** Forward and reply report send_email's failure text as is, and their own success message otherwise. */
function relay(sent: ToolOutcome, success: string): ToolOutcome {
  const text = String(sent.output);
  if (text.includes('Error') || text.includes('Invalid')) return { output: sent.output };
  return { output: success, workspace: sent.workspace };
}
