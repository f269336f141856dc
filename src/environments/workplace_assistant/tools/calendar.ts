// The calendar tools (NeMo Gym's CalendarTool): 8-digit event ids, time bounds parsed by pandas, and
// new events appended without renumbering the index (the new row's label is 0).
import { PyError } from '../../../python/errors';
import { pyIsDigit, pyLen } from '../../../python/str';
import { callLower, pyIn, pyInt, pyStr, truthy } from '../../../python/values';
import { appendRow, inColumn, records, setWhere, whereRows } from '../tables';
import { compareTimestamps, toTimestamp, type Timestamp } from '../timestamp';
import { columnEquals, containsFilter, firstMatch, nextId, paginate, withoutMatches, type WorkplaceTool } from '../toolbox';

const FIELDS = ['event_id', 'event_name', 'participant_email', 'event_start', 'duration'];
const UPDATABLE = FIELDS.slice(1);
const BAD_ID = 'Invalid event ID format. Expected 8-digit ID.';
const BAD_START = 'Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS.';

function isEventId(value: unknown): boolean {
  return typeof value === 'string' && pyLen(value) === 8 && pyIsDigit(value);
}

/** `pd.Timestamp(value)` where only ValueError is caught: undefined means "not a timestamp". */
function timestampOrInvalid(value: unknown): Timestamp | null | undefined {
  try {
    return toTimestamp(value);
  } catch (error) {
    if (error instanceof PyError && error.kind === 'ValueError') return undefined;
    throw error;
  }
}

/** Python's int(duration) > 0 check, where only ValueError is caught. */
function durationProblem(value: unknown): string | undefined {
  try {
    return pyInt(value) <= 0n ? 'Duration must be a positive number of minutes.' : undefined;
  } catch (error) {
    if (error instanceof PyError && error.kind === 'ValueError') return 'Invalid duration format. Expected a number of minutes.';
    throw error;
  }
}

function startOf(event: { event_start?: unknown }): Timestamp {
  return toTimestamp(event.event_start)!;
}

export const calendarTools: Record<string, WorkplaceTool> = {
  calendar_get_event_information_by_id: {
    method: 'CalendarTool.get_event_information_by_id',
    params: { event_id: null, field: null },
    run(ws, { event_id, field }) {
      if (!truthy(event_id)) return { output: 'Event ID not provided.' };
      if (!truthy(field)) return { output: 'Field not provided.' };
      if (!isEventId(event_id)) return { output: BAD_ID };
      if (!pyIn(field, FIELDS)) return { output: `Invalid field. Available fields are: ${FIELDS.join(', ')}` };
      const event = firstMatch(ws.calendar, 'event_id', event_id);
      if (!event) return { output: 'Event not found.' };
      return { output: pyIn(field, event) ? { [field as string]: event[field as string] } : 'Field not found.' };
    },
  },
  calendar_search_events: {
    method: 'CalendarTool.search_events',
    params: { query: '', time_min: null, time_max: null, page: 1, page_size: 5 },
    run(ws, { query, time_min, time_max, page, page_size }) {
      let lower: Timestamp | null | undefined;
      let upper: Timestamp | null | undefined;
      if (truthy(time_min) && (lower = timestampOrInvalid(time_min)) === undefined) {
        return { output: 'Invalid time_min format. Expected YYYY-MM-DD HH:MM:SS.' };
      }
      if (truthy(time_max) && (upper = timestampOrInvalid(time_max)) === undefined) {
        return { output: 'Invalid time_max format. Expected YYYY-MM-DD HH:MM:SS.' };
      }
      const byName = containsFilter(ws.calendar, 'event_name', query, true);
      const byParticipant = containsFilter(ws.calendar, 'participant_email', query, true);
      let events = records(whereRows(ws.calendar, (c) => byName(c) || byParticipant(c)));
      if (lower) events = events.filter((e) => compareTimestamps(startOf(e), lower) >= 0);
      if (upper) events = events.filter((e) => compareTimestamps(startOf(e), upper) <= 0);
      if (events.length === 0) return { output: 'No events found.' };
      events = [...events].sort((a, b) => compareTimestamps(startOf(b), startOf(a)));
      const { items, page: current, totalPages } = paginate(events, page, page_size);
      return {
        output: {
          events: items,
          pagination: { total_events: events.length, page: current, page_size, total_pages: totalPages },
        },
      };
    },
  },
  calendar_create_event: {
    method: 'CalendarTool.create_event',
    params: { event_name: null, participant_email: null, event_start: null, duration: null },
    run(ws, { event_name, participant_email, event_start, duration }) {
      if (!truthy(event_name)) return { output: 'Event name not provided.' };
      if (!truthy(participant_email)) return { output: 'Participant email not provided.' };
      if (!truthy(event_start)) return { output: 'Event start not provided.' };
      if (!truthy(duration)) return { output: 'Event duration not provided.' };
      if (timestampOrInvalid(event_start) === undefined) return { output: BAD_START };
      const problem = durationProblem(duration);
      if (problem) return { output: problem };
      const email = callLower(participant_email);
      const eventId = nextId(ws.calendar, 'event_id', 8);
      const row = { event_id: eventId, event_name, participant_email: email, event_start, duration };
      return { output: eventId, workspace: { ...ws, calendar: appendRow(ws.calendar, row, 0) } };
    },
  },
  calendar_delete_event: {
    method: 'CalendarTool.delete_event',
    params: { event_id: null },
    run(ws, { event_id }) {
      if (!truthy(event_id)) return { output: 'Event ID not provided.' };
      if (!isEventId(event_id)) return { output: BAD_ID };
      if (!inColumn(event_id, ws.calendar, 'event_id')) return { output: 'Event not found.' };
      return { output: 'Event deleted successfully.', workspace: { ...ws, calendar: withoutMatches(ws.calendar, 'event_id', event_id) } };
    },
  },
  calendar_update_event: {
    method: 'CalendarTool.update_event',
    params: { event_id: null, field: null, new_value: null },
    run(ws, { event_id, field, new_value }) {
      if (!truthy(event_id) || !truthy(field) || !truthy(new_value)) return { output: 'Event ID, field, or new value not provided.' };
      if (!isEventId(event_id)) return { output: BAD_ID };
      if (!pyIn(field, UPDATABLE)) return { output: `Invalid field. Available fields are: ${UPDATABLE.join(', ')}` };
      if (field === 'event_start' && timestampOrInvalid(new_value) === undefined) return { output: BAD_START };
      if (field === 'duration') {
        const problem = durationProblem(new_value);
        if (problem) return { output: problem };
      }
      if (!inColumn(event_id, ws.calendar, 'event_id')) return { output: 'Event not found.' };
      const value = field === 'participant_email' ? callLower(new_value) : new_value;
      const calendar = setWhere(ws.calendar, columnEquals(ws.calendar, 'event_id', event_id), pyStr(field), value);
      return { output: 'Event updated successfully.', workspace: { ...ws, calendar } };
    },
  },
};
