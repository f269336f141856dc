// The project-management tools (NeMo Gym's ProjectManagementTool): task boards with fixed list and
// board names, assignees restricted to people who already have tasks.
import { PyError } from '../../../python/errors';
import { callLower, pyIn, pyStr, truthy, typeName } from '../../../python/values';
import { appendRow, inColumn, lowerOrNull, records, setWhere, whereRows, type Workspace } from '../tables';
import { columnEquals, containsFilter, firstMatch, nextId, withoutMatches, type WorkplaceTool } from '../toolbox';

const LISTS = ['Backlog', 'In Progress', 'In Review', 'Completed'];
const BOARDS = ['Back end', 'Front end', 'Design'];
const BAD_LIST = "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'.";
const BAD_BOARD = "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'.";
const BAD_ASSIGNEE = 'Assignee email not valid. Please choose from the list of team members.';
const EMAIL = /^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}\n?$/;

function isTeamMember(ws: Workspace, email: string): boolean {
  return ws.tasks.rows.some((r) => lowerOrNull(r.cells.assigned_to_email) === email);
}

export const projectTools: Record<string, WorkplaceTool> = {
  project_management_get_task_information_by_id: {
    method: 'ProjectManagementTool.get_task_information_by_id',
    params: { task_id: null, field: null },
    run(ws, { task_id, field }) {
      if (!truthy(task_id)) return { output: 'Task ID not provided.' };
      if (!truthy(field)) return { output: 'Field not provided.' };
      const task = firstMatch(ws.tasks, 'task_id', task_id);
      if (!task) return { output: 'Task not found.' };
      return { output: pyIn(field, task) ? { [field as string]: task[field as string] } : 'Field not found.' };
    },
  },
  project_management_search_tasks: {
    method: 'ProjectManagementTool.search_tasks',
    params: { task_name: null, assigned_to_email: null, list_name: null, due_date: null, board: null },
    run(ws, { task_name, assigned_to_email, list_name, due_date, board }) {
      if (![task_name, assigned_to_email, list_name, due_date, board].some(truthy)) return { output: 'No search parameters provided.' };
      if (truthy(assigned_to_email)) {
        if (typeof assigned_to_email !== 'string') {
          throw new PyError('TypeError', `expected string or bytes-like object, got '${typeName(assigned_to_email)}'`);
        }
        if (!EMAIL.test(assigned_to_email)) return { output: 'Invalid email format for assigned_to_email.' };
      }
      let tasks = ws.tasks;
      const narrow = (column: string, pattern: unknown) => {
        if (truthy(pattern)) tasks = whereRows(tasks, containsFilter(tasks, column, pattern));
      };
      narrow('task_name', task_name);
      if (truthy(assigned_to_email)) {
        const wanted = callLower(assigned_to_email);
        tasks = whereRows(tasks, (c) => lowerOrNull(c.assigned_to_email) === wanted);
      }
      narrow('list_name', list_name);
      narrow('due_date', due_date);
      narrow('board', board);
      return { output: records(tasks) };
    },
  },
  project_management_create_task: {
    method: 'ProjectManagementTool.create_task',
    params: { task_name: null, assigned_to_email: null, list_name: null, due_date: null, board: null },
    run(ws, { task_name, assigned_to_email, list_name, due_date, board }) {
      if (![task_name, assigned_to_email, list_name, due_date, board].every(truthy)) return { output: 'Missing task details.' };
      const assignee = callLower(assigned_to_email);
      if (!isTeamMember(ws, assignee)) return { output: BAD_ASSIGNEE };
      if (!pyIn(list_name, LISTS)) return { output: BAD_LIST };
      if (!pyIn(board, BOARDS)) return { output: BAD_BOARD };
      const taskId = nextId(ws.tasks, 'task_id', 8);
      const row = { task_id: taskId, task_name, assigned_to_email: assignee, list_name, due_date, board };
      return { output: taskId, workspace: { ...ws, tasks: appendRow(ws.tasks, row) } };
    },
  },
  project_management_delete_task: {
    method: 'ProjectManagementTool.delete_task',
    params: { task_id: null },
    run(ws, { task_id }) {
      if (!truthy(task_id)) return { output: 'Task ID not provided.' };
      if (!inColumn(task_id, ws.tasks, 'task_id')) return { output: 'Task not found.' };
      return { output: 'Task deleted successfully.', workspace: { ...ws, tasks: withoutMatches(ws.tasks, 'task_id', task_id) } };
    },
  },
  project_management_update_task: {
    method: 'ProjectManagementTool.update_task',
    params: { task_id: null, field: null, new_value: null },
    run(ws, { task_id, field, new_value }) {
      if (!truthy(task_id) || !truthy(field) || !truthy(new_value)) return { output: 'Task ID, field, or new value not provided.' };
      const value = field === 'assigned_to_email' ? callLower(new_value) : new_value;
      if (field === 'board' && !pyIn(value, BOARDS)) return { output: BAD_BOARD };
      if (field === 'list_name' && !pyIn(value, LISTS)) return { output: BAD_LIST };
      if (field === 'assigned_to_email' && !isTeamMember(ws, value as string)) return { output: BAD_ASSIGNEE };
      if (!inColumn(task_id, ws.tasks, 'task_id')) return { output: 'Task not found.' };
      if (!pyIn(field, ws.tasks.columns)) return { output: 'Field not valid.' };
      const tasks = setWhere(ws.tasks, columnEquals(ws.tasks, 'task_id', task_id), pyStr(field), value);
      return { output: 'Task updated successfully.', workspace: { ...ws, tasks } };
    },
  },
};
