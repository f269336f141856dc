"""Differential cases for Gymflow's workplace_assistant: runs NeMo Gym's own tools (pandas 2.3) on
generated and hand-picked call sequences and records what its catch-all route returns, and its
verify verdicts for pairs of call lists. Output longer than 1500 characters is stored as the sha256
of its canonical JSON (sorted keys, integral floats as ints, NaN as null).

Usage: python workplace_assistant.cases.py <NeMo Gym checkout at 07d6b0d> <seed> <tool sequences>
       <verify pairs> <out.jsonl>   (needs pandas==2.3.2; this file: seed 7, 120 sequences, 60 pairs)
"""
import sys, json, random, hashlib, math, warnings
warnings.filterwarnings('ignore')
sys.path.insert(0, sys.argv[1])
from resources_servers.workplace_assistant.utils import get_tools, is_correct

KITS = ["email", "calendar", "analytics", "project_management", "customer_relationship_manager"]
base = get_tools(KITS)
C = base['containers']
emails = C['email']._emails; cal = C['calendar']._calendar_events; tasks = C['project_management']._project_tasks
crm = C['customer_relationship_manager']._crm_data; an = C['analytics']._analytics_data
directory = C['company_directory']._emails['email_address'].tolist()
rng = random.Random(int(sys.argv[2]))

def clean(x):
    if isinstance(x, float):
        if math.isnan(x): return None
        return int(x) if x.is_integer() else x
    if isinstance(x, dict): return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)): return [clean(v) for v in x]
    if hasattr(x, 'item'): return clean(x.item())
    return x

def canon(x): return json.dumps(clean(x), sort_keys=True, separators=(',', ':'), ensure_ascii=False)

def route(env, name, args):
    given = {k: v for k, v in args.items() if v is not None}
    try:
        return {"output": env['functions'][name](**given)}
    except Exception as e:
        return {"output": f"Error executing tool '{name}': {e}"}

pick = rng.choice
def maybe(v, p=0.75): return v if rng.random() < p else None
words = ['update', 'task', 'kofi', 'meeting', 'review', 'Sam', 'budget', 'prototype', 'sync', 'Carlos', 'nadia', 'report', 'the', 'ZZZ']
regexy = ['(', 'C++', '[abc', 'a|b', '.*review', 'sync up', 'Review$', '^sync', r'\d+', '*x', 'ab**', '(?P<x>sync)', '\\q', 'an{2}', 'a{', 'x)', '']
dates = ['2023-11-20', '2023-11-01', '2023-10-15', 'Nov 20, 2023', '11/20/2023', '2023-11-30T10:00:00Z', 'garbage', '2023-13-01', '2023-11-31', '2023/11/25', '20231125', 'November 2 2023', 5, [1], True]
times = ['2023-11-28 09:00:00', '2023-12-01 10:00:00', '2023-12-01T14:30', 'Dec 1 2023 10am', '2023-11-30 25:00', 'tomorrow', 20231201, '2023-12-05', '2023-11-01 00:00:00']
pages = [1, 2, 3, 0, -1, '2', 100, True, 2.5]
sizes = [5, 2, 1, 10, 0, -2, '3', 3]
people = directory + ['Nobody@Nowhere.com', 'not-an-email', 'SAM@ATLAS.COM']
def eid(): return pick(emails['email_id'].tolist() + ['501', '00000999', 'abc', 5, ['00000001'], ''])
def evid(): return pick(cal['event_id'].tolist() + ['00000300', '00000999', '123', 'abcdefgh', 12345678, '１２３４５６７８'])
def tid(): return pick(tasks['task_id'].tolist() + ['00000300', '00000999', 7])
def cid(): return pick(crm['customer_id'].tolist() + ['00000200', '00000999', 3])

def gen_args(name):
    a = {}
    if name == 'company_directory_find_email_address': a = {'name': pick(['nadia', 'Carlos', 'sam', '', 'zz', 'a.', '(', 5, None])}
    elif name == 'email_get_email_information_by_id': a = {'email_id': eid(), 'field': pick(['subject', 'body', 'sender/recipient', 'nope', 5, ['subject'], ''])}
    elif name == 'email_search_emails': a = {'query': maybe(pick(words + [w + ' ' + v for w in words[:3] for v in words[3:6]] + [5, 'KOFI Create'])), 'date_min': maybe(pick(dates), 0.3), 'date_max': maybe(pick(dates), 0.3), 'page': maybe(pick(pages), 0.4), 'page_size': maybe(pick(sizes), 0.6)}
    elif name == 'email_send_email': a = {'recipient': pick(people + [5, ['@.']]), 'subject': maybe(pick(['Hello', 'Re: budget', 'Ünïcødé ✓', 1])), 'body': maybe(pick(['Body text', 'Thanks!', '', 0, True]))}
    elif name == 'email_delete_email': a = {'email_id': eid()}
    elif name == 'email_forward_email': a = {'email_id': eid(), 'recipient': pick(people)}
    elif name == 'email_reply_email': a = {'email_id': eid(), 'body': maybe(pick(['Thanks', 'On it.', 5]))}
    elif name == 'calendar_get_event_information_by_id': a = {'event_id': evid(), 'field': pick(['event_name', 'duration', 'event_id', 'nope', ''])}
    elif name == 'calendar_search_events': a = {'query': maybe(pick(words + regexy + ['luis', 'atlas.com', 5])), 'time_min': maybe(pick(times + dates), 0.3), 'time_max': maybe(pick(times + dates), 0.3), 'page': maybe(pick(pages), 0.3), 'page_size': maybe(pick(sizes), 0.5)}
    elif name == 'calendar_create_event': a = {'event_name': maybe(pick(['Sync', 'Budget Review', 'ÉVÉNEMENT'])), 'participant_email': maybe(pick(people)), 'event_start': maybe(pick(times)), 'duration': maybe(pick(['30', '60', 45, '0', '-5', 'abc', '1.5', ' 90 ', [1], '1_0']))}
    elif name == 'calendar_delete_event': a = {'event_id': evid()}
    elif name == 'calendar_update_event': a = {'event_id': evid(), 'field': pick(['event_name', 'participant_email', 'event_start', 'duration', 'event_id', 'nope']), 'new_value': maybe(pick(['New Name', 'Luis.Ortiz@Atlas.com', '2023-12-02 11:00:00', 'bad time', '45', '-1', 'x', 30]))}
    elif name == 'analytics_get_visitor_information_by_id': a = {'visitor_id': pick(an['visitor_id'].tolist()[:50] + ['9999', 860])}
    elif name == 'analytics_create_plot': a = {'time_min': maybe(pick(['2023-11-01', '2023-10-01', 20231101])), 'time_max': maybe(pick(['2023-11-30', '2023-11-15'])), 'value_to_plot': pick(['total_visits', 'user_engaged', 'visits_direct', 'bounce']), 'plot_type': pick(['bar', 'line', 'pie', 'histogram'])}
    elif name in ('analytics_total_visits_count', 'analytics_engaged_users_count', 'analytics_get_average_session_duration'):
        a = {'time_min': maybe(pick(['2023-11-25', '2023-11-28', '2023-11-29 00:00', 5]), 0.7), 'time_max': maybe(pick(['2023-11-28', '2023-11-30']), 0.6)}
    elif name == 'analytics_traffic_source_count': a = {'time_min': maybe(pick(['2023-11-25', '2023-11-28']), 0.8), 'time_max': maybe('2023-11-30', 0.5), 'traffic_source': maybe(pick(['direct', 'referral', 'search engine', 'social media', 'email']))}
    elif name == 'project_management_get_task_information_by_id': a = {'task_id': tid(), 'field': pick(['task_name', 'board', 'nope'])}
    elif name == 'project_management_search_tasks': a = {'task_name': maybe(pick(['prototype', 'Add', 'carousel', '(', 'z{2}']), 0.5), 'assigned_to_email': maybe(pick(people + ['bad@', 5]), 0.4), 'list_name': maybe(pick(['Backlog', 'progress', 'Review']), 0.4), 'due_date': maybe(pick(['2023-11', '2023-12-0']), 0.3), 'board': maybe(pick(['Back end', 'front', 'Design']), 0.4)}
    elif name == 'project_management_create_task': a = {'task_name': maybe('Write docs', 0.9), 'assigned_to_email': maybe(pick(people), 0.9), 'list_name': pick(['Backlog', 'In Progress', 'Doing']), 'due_date': maybe('2023-12-15', 0.9), 'board': pick(['Back end', 'Front end', 'Design', 'Ops'])}
    elif name == 'project_management_delete_task': a = {'task_id': tid()}
    elif name == 'project_management_update_task': a = {'task_id': tid(), 'field': pick(['task_name', 'assigned_to_email', 'list_name', 'board', 'due_date', 'task_id', 'nope']), 'new_value': maybe(pick(['Completed', 'In Review', 'Design', 'Ops', 'Fatima.Khan@atlas.com', 'x@y.com', 'Renamed task', '2023-12-20', '00000999', 5]))}
    elif name == 'customer_relationship_manager_search_customers': a = {k: maybe(v, 0.35) for k, v in {'customer_name': pick(['Casey', 'taylor', 'J', '(']), 'customer_email': pick(['nanolabs', 'com']), 'product_interest': pick(['Software', 'hard', 'Services']), 'status': pick(['Lead', 'won', 'Proposal']), 'assigned_to_email': pick(['akira', 'lena.schmidt', 'raj']), 'last_contact_date_min': pick(['2023-11-01', '2023-11-20 00:00:00', 5]), 'last_contact_date_max': pick(['2023-11-09', '2023-11-30 23:59:59']), 'follow_up_by_min': '2023-12-01', 'follow_up_by_max': '2023-12-15', 'page': pick(pages), 'page_size': pick(sizes)}.items()}
    elif name == 'customer_relationship_manager_update_customer': a = {'customer_id': cid(), 'field': pick(['status', 'product_interest', 'customer_email', 'assigned_to_email', 'notes', 'customer_name', 'nope']), 'new_value': maybe(pick(['Won', 'Lost', 'lost', 'Hardware', 'Gadgets', 'New.Person@X.com', 'Called back', 'Zed']))}
    elif name == 'customer_relationship_manager_add_customer': a = {'customer_name': maybe('Dakota Thomas', 0.9), 'assigned_to_email': maybe(pick(people), 0.9), 'status': maybe(pick(['Lead', 'lead', 'Won']), 0.9), 'customer_email': maybe(pick(['Dakota@X.com', '']), 0.5), 'customer_phone': maybe('555-1234', 0.3), 'notes': maybe(pick(['first contact', None]), 0.4), 'follow_up_by': maybe('2023-12-10', 0.3)}
    elif name == 'customer_relationship_manager_delete_customer': a = {'customer_id': cid()}
    if rng.random() < 0.04: a['unexpected'] = 1
    return {k: v for k, v in a.items() if v is not None or rng.random() < 0.15}

names = list(base['functions'].keys())
writes = [n for n in names if any(w in n for w in ('send', 'delete', 'forward', 'reply', 'create', 'update', 'add_'))]
out = []
for s in range(int(sys.argv[3])):
    env = get_tools(KITS)
    calls, outputs = [], []
    for _ in range(rng.randint(1, 7)):
        name = pick(writes if rng.random() < 0.45 else names)
        args = gen_args(name)
        calls.append({'name': name, 'arguments': json.dumps(args)})
        res = route(env, name, args)
        text = canon(res)
        outputs.append(res['output'] if len(text) <= 1500 else {'sha256': hashlib.sha256(text.encode()).hexdigest()})
    out.append({'kind': 'tools', 'calls': calls, 'outputs': clean(outputs)})


SCRIPTED = [
  [('analytics_get_average_session_duration', {}), ('analytics_get_visitor_information_by_id', {'visitor_id': '0860'}), ('analytics_engaged_users_count', {'time_max': '2023-09-03'})],
  [('analytics_get_average_session_duration', {'time_max': '2023-09-02'}), ('analytics_get_visitor_information_by_id', {'visitor_id': '0860'})],
  [('calendar_create_event', {'event_name': 'TZ', 'participant_email': 'a@b.com', 'event_start': '2023-12-01T10:00:00Z', 'duration': '30'}), ('calendar_search_events', {'query': 'TZ'}), ('calendar_search_events', {'query': 'sync', 'time_min': '2023-11-01 00:00:00'})],
  [('customer_relationship_manager_add_customer', {'customer_name': 'No Mail', 'assigned_to_email': 'raj.patel@atlas.com', 'status': 'Lead'}), ('customer_relationship_manager_search_customers', {'customer_email': 'nanolabs'}), ('customer_relationship_manager_search_customers', {'customer_name': 'No Mail'})],
  [('project_management_update_task', {'task_id': '00000149', 'field': 'task_id', 'new_value': 'abc'}), ('project_management_create_task', {'task_name': 'X', 'assigned_to_email': 'leila.azizi@atlas.com', 'list_name': 'Backlog', 'due_date': '2023-12-01', 'board': 'Design'})],
  [('project_management_update_task', {'task_id': '00000149', 'field': 'task_name', 'new_value': 5}), ('project_management_search_tasks', {'task_name': 'Add'}), ('project_management_search_tasks', {'board': 'Design'})],
  [('calendar_update_event', {'event_id': '00000013', 'field': 'duration', 'new_value': 45}), ('calendar_search_events', {'query': 'sync up', 'page_size': 3}), ('calendar_get_event_information_by_id', {'event_id': '00000013', 'field': 'duration'})],
  [('email_search_emails', {'query': 'Task   Update\tkofi'}), ('email_search_emails', {'query': 'kofi', 'date_min': '2023-11-22', 'date_max': '2023-11-22'}), ('email_search_emails', {'query': 'kofi', 'page': -1, 'page_size': -1})],
  [('customer_relationship_manager_update_customer', {'customer_id': '00000189', 'field': 'last_contact_date', 'new_value': 5}), ('customer_relationship_manager_search_customers', {'last_contact_date_min': '2023-11-01'})],
  [('calendar_search_events', {'query': q}) for q in ['(?i)SYNC', 'sync|review', '[Ss]ync', 'sync\\b', '\\bup$', 'a{,2}', '(?x) s y n c', 'sync(?= up)', '(?P<w>up)', 'C++', 'x{2,1}', '[z-a]', '(?#c)sync', '\\', 'up\\Z']],
  [('company_directory_find_email_address', {'name': n}) for n in ['NADIA', '.', 'a.s', '^s', 'é', 'ø|sam', '[']],
  [('calendar_create_event', {'event_name': 'E', 'participant_email': 'x@y.com', 'event_start': t, 'duration': '30'}) for t in ['2023-12-01', 'Dec 1, 2023 3pm', '12/01/2023 10:00', '2023-12-01 10:00 AM', 'Friday, December 1, 2023 10:00', '1 Dec 2023', '2023-12-01T10:00:00+05:30', '10:00', '2023-02-29', '2024-02-29 09:00', 'Dec 32 2023', '13/13/2023', '2023-12-01 9am', 'noon', 5.5, True, [2023]]],
]
for seq in SCRIPTED:
    env = get_tools(KITS)
    calls, outputs = [], []
    for name, args in seq:
        calls.append({'name': name, 'arguments': json.dumps(args)})
        res = route(env, name, args)
        text = canon(res)
        outputs.append(res['output'] if len(text) <= 1500 else {'sha256': hashlib.sha256(text.encode()).hexdigest()})
    out.append({'kind': 'tools', 'calls': calls, 'outputs': clean(outputs)})

VERIFY_SCRIPTED = [
  # calendar: delete + create keeps label 0 for the new row; order of create calls changes ids
  ([('calendar_create_event', {'event_name': 'A', 'participant_email': 'a@b.com', 'event_start': '2023-12-01 10:00:00', 'duration': '30'}), ('calendar_create_event', {'event_name': 'B', 'participant_email': 'a@b.com', 'event_start': '2023-12-01 11:00:00', 'duration': '30'})],
   [('calendar_create_event', {'event_name': 'B', 'participant_email': 'a@b.com', 'event_start': '2023-12-01 11:00:00', 'duration': '30'}), ('calendar_create_event', {'event_name': 'A', 'participant_email': 'a@b.com', 'event_start': '2023-12-01 10:00:00', 'duration': '30'})]),
  ([('email_delete_email', {'email_id': '00000001'}), ('email_send_email', {'recipient': 'a@b.com', 'subject': 's', 'body': 'b'})],
   [('email_send_email', {'recipient': 'a@b.com', 'subject': 's', 'body': 'b'}), ('email_delete_email', {'email_id': '00000001'})]),
  ([('customer_relationship_manager_add_customer', {'customer_name': 'Z', 'assigned_to_email': 'raj.patel@atlas.com', 'status': 'Lead', 'notes': None})],
   [('customer_relationship_manager_add_customer', {'customer_name': 'Z', 'assigned_to_email': 'raj.patel@atlas.com', 'status': 'Lead'})]),
  ([('customer_relationship_manager_update_customer', {'customer_id': '00000189', 'field': 'status', 'new_value': 'Won'})],
   [('customer_relationship_manager_update_customer', {'customer_id': '00000189', 'field': 'status', 'new_value': 'won'})]),
  ([('calendar_update_event', {'event_id': '00000013', 'field': 'duration', 'new_value': 45})],
   [('calendar_update_event', {'event_id': '00000013', 'field': 'duration', 'new_value': '45'})]),
  ([('analytics_create_plot', {'time_min': '2023-11-01', 'time_max': '2023-11-30', 'value_to_plot': 'total_visits', 'plot_type': 'BAR'})],
   [('analytics_create_plot', {'time_min': '2023-11-01', 'time_max': '2023-11-30', 'value_to_plot': 'total_visits', 'plot_type': 'bar'})]),
  ([('project_management_update_task', {'task_id': '00000149', 'field': 'list_name', 'new_value': 'Completed'}), ('project_management_update_task', {'task_id': '00000149', 'field': 'list_name', 'new_value': 'In Review'})],
   [('project_management_update_task', {'task_id': '00000149', 'field': 'list_name', 'new_value': 'In Review'})]),
  ([('calendar_delete_event', {'event_id': '00000013'}), ('calendar_create_event', {'event_name': 'A', 'participant_email': 'a@b.com', 'event_start': '2023-12-01 10:00:00', 'duration': '30'})],
   [('calendar_create_event', {'event_name': 'A', 'participant_email': 'a@b.com', 'event_start': '2023-12-01 10:00:00', 'duration': '30'}), ('calendar_delete_event', {'event_id': '00000013'})]),
]
for pred, gt in VERIFY_SCRIPTED:
    P = [{'name': n, 'arguments': json.dumps(a)} for n, a in pred]; G = [{'name': n, 'arguments': json.dumps(a)} for n, a in gt]
    out.append({'kind': 'verify', 'variant': 'scripted', 'predicted': P, 'ground_truth': G, 'reward': 1.0 if is_correct(P, G, None) else 0.0})

def verdict(pred, gt):
    return 1.0 if is_correct(pred, gt, None) else 0.0
for s in range(int(sys.argv[4])):
    gt = []
    for _ in range(rng.randint(0, 3)):
        name = pick(writes); gt.append({'name': name, 'arguments': json.dumps(gen_args(name))})
    variant = pick(['same', 'lower', 'shuffle', 'extra_read', 'drop', 'random', 'nulls', 'badjson'])
    pred = [dict(c) for c in gt]
    if variant == 'lower': pred = [{'name': c['name'], 'arguments': json.dumps({k: (v.lower() if isinstance(v, str) else v) for k, v in json.loads(c['arguments']).items()})} for c in gt]
    elif variant == 'shuffle': rng.shuffle(pred)
    elif variant == 'extra_read': pred.insert(rng.randint(0, len(pred)), {'name': 'email_search_emails', 'arguments': '{"query": "budget"}'})
    elif variant == 'drop' and pred: pred.pop(rng.randrange(len(pred)))
    elif variant == 'random': pred = [{'name': n, 'arguments': json.dumps(gen_args(n))} for n in [pick(writes) for _ in range(rng.randint(0, 3))]]
    elif variant == 'nulls': pred = [{'name': c['name'], 'arguments': json.dumps({**json.loads(c['arguments']), 'notes': None} if 'add_customer' in c['name'] else json.loads(c['arguments']))} for c in gt]
    elif variant == 'badjson': pred = pred + [{'name': 'email_delete_email', 'arguments': '{not json'}, {'name': 'no_such_tool', 'arguments': '{}'}]
    out.append({'kind': 'verify', 'variant': variant, 'predicted': pred, 'ground_truth': gt, 'reward': verdict(pred, gt)})
with open(sys.argv[5], "w") as f:
    for o in out: f.write(json.dumps(o, ensure_ascii=False) + "\n")
