// The CRM tools (NeMo Gym's CustomerRelationshipManagerTool): regex searches over customer fields,
// string-ordered date bounds, and status/product values restricted on update (but not on add).
import { callLower, pyIn, pyStr, truthy } from '../../../python/values';
import { appendRow, inColumn, records, setWhere, whereRows } from '../tables';
import { columnEquals, compareFilter, containsFilter, nextId, paginate, withoutMatches, type WorkplaceTool } from '../toolbox';

const STATUSES = ['Qualified', 'Won', 'Lost', 'Lead', 'Proposal'];
const PRODUCTS = ['Software', 'Hardware', 'Services', 'Consulting', 'Training'];
const FIELDS_HINT =
  "Field not valid. Please choose from: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'";

const SEARCH_PARAMS = {
  customer_name: null,
  customer_email: null,
  product_interest: null,
  status: null,
  assigned_to_email: null,
  last_contact_date_min: null,
  last_contact_date_max: null,
  follow_up_by_min: null,
  follow_up_by_max: null,
};

export const crmTools: Record<string, WorkplaceTool> = {
  customer_relationship_manager_search_customers: {
    method: 'CustomerRelationshipManagerTool.search_customers',
    params: { ...SEARCH_PARAMS, page: 1, page_size: 5 },
    run(ws, args) {
      if (!Object.keys(SEARCH_PARAMS).some((k) => truthy(args[k]))) {
        return { output: 'No search parameters provided. Please provide at least one parameter.' };
      }
      let customers = ws.crm;
      for (const column of ['customer_name', 'customer_email', 'product_interest', 'status', 'assigned_to_email']) {
        if (truthy(args[column])) customers = whereRows(customers, containsFilter(customers, column, args[column]));
      }
      const bounds: [string, string, '>=' | '<='][] = [
        ['last_contact_date_min', 'last_contact_date', '>='],
        ['last_contact_date_max', 'last_contact_date', '<='],
        ['follow_up_by_min', 'follow_up_by', '>='],
        ['follow_up_by_max', 'follow_up_by', '<='],
      ];
      for (const [param, column, op] of bounds) {
        if (truthy(args[param])) customers = whereRows(customers, compareFilter(customers, column, op, args[param]));
      }
      const all = records(customers);
      const { items, page, totalPages } = paginate(all, args.page, args.page_size);
      if (all.length === 0) return { output: 'No customers found.' };
      return {
        output: {
          customers: items,
          pagination: { total_customers: all.length, page, page_size: args.page_size, total_pages: totalPages },
        },
      };
    },
  },
  customer_relationship_manager_update_customer: {
    method: 'CustomerRelationshipManagerTool.update_customer',
    params: { customer_id: null, field: null, new_value: null },
    run(ws, { customer_id, field, new_value }) {
      if (!truthy(customer_id) || !truthy(field) || !truthy(new_value)) return { output: 'Customer ID, field, or new value not provided.' };
      if (field === 'status' && !pyIn(new_value, STATUSES)) {
        return { output: "Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'" };
      }
      if (field === 'product_interest' && !pyIn(new_value, PRODUCTS)) {
        return { output: "Product interest not valid. Please choose from: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'" };
      }
      const value = field === 'customer_email' || field === 'assigned_to_email' ? callLower(new_value) : new_value;
      if (!inColumn(customer_id, ws.crm, 'customer_id')) return { output: 'Customer not found.' };
      if (!pyIn(field, ws.crm.columns)) return { output: FIELDS_HINT };
      const crm = setWhere(ws.crm, columnEquals(ws.crm, 'customer_id', customer_id), pyStr(field), value);
      return { output: 'Customer updated successfully.', workspace: { ...ws, crm } };
    },
  },
  customer_relationship_manager_add_customer: {
    method: 'CustomerRelationshipManagerTool.add_customer',
    params: {
      customer_name: null,
      assigned_to_email: null,
      status: null,
      customer_email: null,
      customer_phone: null,
      last_contact_date: null,
      product_interest: null,
      notes: '',
      follow_up_by: null,
    },
    run(ws, args) {
      if (![args.customer_name, args.assigned_to_email, args.status].every(truthy)) {
        return { output: 'Please provide all required fields: customer_name, assigned_to_email, status.' };
      }
      const assignee = callLower(args.assigned_to_email);
      const email = truthy(args.customer_email) ? callLower(args.customer_email) : args.customer_email;
      const customerId = nextId(ws.crm, 'customer_id', 8);
      const row = { ...args, customer_id: customerId, assigned_to_email: assignee, customer_email: email };
      return { output: customerId, workspace: { ...ws, crm: appendRow(ws.crm, row) } };
    },
  },
  customer_relationship_manager_delete_customer: {
    method: 'CustomerRelationshipManagerTool.delete_customer',
    params: { customer_id: null },
    run(ws, { customer_id }) {
      if (!truthy(customer_id)) return { output: 'Customer ID not provided.' };
      if (!inColumn(customer_id, ws.crm, 'customer_id')) return { output: 'Customer not found.' };
      return { output: 'Customer deleted successfully.', workspace: { ...ws, crm: withoutMatches(ws.crm, 'customer_id', customer_id) } };
    },
  },
};
