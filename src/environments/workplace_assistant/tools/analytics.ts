// The analytics tools (NeMo Gym's AnalyticsTool): per-day counts and means over website visits, and
// create_plot, which only records a file path. A quirk kept on purpose: the average-duration tool
// without bounds converts the durations of the shared table to floats, which later lookups show.
import { pyIn, pyStr, truthy } from '../../../python/values';
import { appendRow, mapColumn, records, whereRows, type Cells, type Table } from '../tables';
import { columnEquals, compareFilter, type WorkplaceTool } from '../toolbox';

const PLOTTABLE = ['total_visits', 'session_duration_seconds', 'user_engaged', 'visits_direct', 'visits_referral', 'visits_search_engine', 'visits_social_media'];
const PLOT_TYPES = ['bar', 'line', 'scatter', 'histogram'];

function inRange(table: Table, timeMin: unknown, timeMax: unknown): Table {
  let data = table;
  if (truthy(timeMin)) data = whereRows(data, compareFilter(data, 'date_of_visit', '>=', timeMin));
  if (truthy(timeMax)) data = whereRows(data, compareFilter(data, 'date_of_visit', '<=', timeMax));
  return data;
}

/** groupby("date_of_visit") with keys in sorted order, reduced per day. */
function perDay(table: Table, reduce: (rows: Cells[]) => number): Record<string, number> {
  const groups = new Map<string, Cells[]>();
  for (const cells of records(table)) {
    const day = String(cells.date_of_visit);
    groups.set(day, [...(groups.get(day) ?? []), cells]);
  }
  return Object.fromEntries([...groups.keys()].sort().map((day) => [day, reduce(groups.get(day)!)]));
}

/** Python's float(str) for the CSV's duration strings. */
function toFloat(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export const analyticsTools: Record<string, WorkplaceTool> = {
  analytics_get_visitor_information_by_id: {
    method: 'AnalyticsTool.get_visitor_information_by_id',
    params: { visitor_id: null },
    run(ws, { visitor_id }) {
      if (!truthy(visitor_id)) return { output: 'Visitor ID not provided.' };
      const visits = records(whereRows(ws.analytics, columnEquals(ws.analytics, 'visitor_id', visitor_id)));
      return { output: visits.length > 0 ? visits : 'Visitor not found.' };
    },
  },
  analytics_create_plot: {
    method: 'AnalyticsTool.create_plot',
    params: { time_min: null, time_max: null, value_to_plot: null, plot_type: null },
    run(ws, { time_min, time_max, value_to_plot, plot_type }) {
      if (!truthy(time_min)) return { output: 'Start date not provided.' };
      if (!truthy(time_max)) return { output: 'End date not provided.' };
      if (!pyIn(value_to_plot, PLOTTABLE)) {
        return { output: `Value to plot must be one of ${PLOTTABLE.map((v) => `'${v}'`).join(', ')}` };
      }
      if (!pyIn(plot_type, PLOT_TYPES)) return { output: "Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'" };
      const path = `plots/${pyStr(time_min)}_${pyStr(time_max)}_${pyStr(value_to_plot)}_${pyStr(plot_type)}.png`;
      return { output: path, workspace: { ...ws, plots: appendRow(ws.plots, { file_path: path }, ws.plots.rows.length) } };
    },
  },
  analytics_total_visits_count: {
    method: 'AnalyticsTool.total_visits_count',
    params: { time_min: null, time_max: null },
    run: (ws, { time_min, time_max }) => ({ output: perDay(inRange(ws.analytics, time_min, time_max), (rows) => rows.length) }),
  },
  analytics_engaged_users_count: {
    method: 'AnalyticsTool.engaged_users_count',
    params: { time_min: null, time_max: null },
    run: (ws, { time_min, time_max }) => ({
      output: perDay(inRange(ws.analytics, time_min, time_max), (rows) => rows.filter((r) => truthy(r.user_engaged)).length),
    }),
  },
  analytics_traffic_source_count: {
    method: 'AnalyticsTool.traffic_source_count',
    params: { time_min: null, time_max: null, traffic_source: null },
    run(ws, { time_min, time_max, traffic_source }) {
      const data = inRange(ws.analytics, time_min, time_max);
      if (!truthy(traffic_source)) return { output: perDay(data, (rows) => rows.length) };
      const fromSource = columnEquals(data, 'traffic_source', traffic_source);
      return { output: perDay(data, (rows) => rows.filter(fromSource).length) };
    },
  },
  analytics_get_average_session_duration: {
    method: 'AnalyticsTool.get_average_session_duration',
    params: { time_min: null, time_max: null },
    run(ws, { time_min, time_max }) {
      const data = mapColumn(inRange(ws.analytics, time_min, time_max), 'session_duration_seconds', toFloat);
      const output = perDay(data, (rows) => rows.reduce((sum, r) => sum + (r.session_duration_seconds as number), 0) / rows.length);
      // Without bounds Python converted the table itself, not a filtered copy.
      if (!truthy(time_min) && !truthy(time_max)) return { output, workspace: { ...ws, analytics: data } };
      return { output };
    },
  },
};
