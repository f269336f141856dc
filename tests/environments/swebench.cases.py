"""Differential cases for Gymflow's swebench: what SWE-bench 4.1.0 and NeMo Gym 0.7.0's swebench server answer.
  eval_script  SWE-bench's eval script for every repository and version of its table (make_eval_script_list, as
               TestSpec.eval_script wraps it), with NeMo Gym's edits (patch_swebench_multilingual_golden_patch_pass),
               over test patches that add, delete, rename and binary-change files; and the test patches it refuses.
  parse        every SWE-bench log parser on hand-written and generated logs: the status map, or the exception.
  verify       NeMo Gym's SwebenchResourcesServer.verify (with SWE-bench's run_instance and get_eval_report) against
               a FAKE pair of sandboxes (they stand for the containers, which cannot run here): the agent's answers
               `git diff`, the verifier's answers the apply commands and eval.sh as each case says. What it uploads
               (patch.diff, eval.sh), which apply commands it tried, and the response.
The environment scripts make_test_spec also builds (never run by verify) fetch some repositories' requirements from
GitHub: those fetches are stubbed to empty text.

Usage: python swebench.cases.py <SWE-bench folder, see swebench_harness.py> <NeMo Gym 0.7.0 tree> <seed> <generated logs> <out.jsonl>
       (this file: seed 11, 80 generated logs; the venv of scripts/setup-nemo-gym.sh)
"""
import asyncio, hashlib, json, os, random, sys, tempfile
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).parent))
import swebench_harness

OUT = Path(sys.argv[5]).resolve()
swebench_harness.load(str(Path(sys.argv[1]).resolve()), str(Path(sys.argv[2]).resolve()))
workdir = tempfile.mkdtemp()
# run_instance writes its logs under the current folder, and verify reads them beside app.py: both here.
os.chdir(workdir)

import swebench.harness.test_spec.python as py_spec
py_spec.get_requirements = lambda instance: ''
py_spec.get_environment_yml = lambda instance, env_name: ''
from swebench.harness.constants import MAP_REPO_TO_EXT, MAP_REPO_VERSION_TO_SPECS
from swebench.harness.log_parsers import MAP_REPO_TO_PARSER
from swebench.harness.log_parsers.javascript import parse_log_jest_json
from swebench.harness.log_parsers.ruby import parse_log_cucumber, parse_log_minitest
from swebench.harness.test_spec.create_scripts import make_eval_script_list
from swebench.harness.test_spec.test_spec import make_test_spec
import resources_servers.swebench.app as app
from resources_servers.swebench.swebench_patches import patch_swebench_multilingual_golden_patch_pass
from nemo_gym.server_utils import SESSION_ID_KEY

app.__file__ = str(Path(workdir) / 'app.py')
rng = random.Random(int(sys.argv[3]))
cases = []

# -- eval scripts -----------------------------------------------------------------------------------------

PATCHES = {
    'modify_and_add': """diff --git a/tests/test_core.py b/tests/test_core.py
index 1111111..2222222 100644
--- a/tests/test_core.py
+++ b/tests/test_core.py
@@ -1,2 +1,3 @@
 import core
+import extra
 
diff --git a/tests/data/new.json b/tests/data/new.json
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/data/new.json
@@ -0,0 +1 @@
+{}
""",
    'delete_and_docs': """diff --git a/pkg/tests/test_b.py b/pkg/tests/test_b.py
index 4444444..5555555 100644
--- a/pkg/tests/test_b.py
+++ b/pkg/tests/test_b.py
@@ -3 +3 @@ def helper():
-    return 1
+    return 2
diff --git a/docs/notes.md b/docs/notes.md
index 6666666..7777777 100644
--- a/docs/notes.md
+++ b/docs/notes.md
@@ -1 +1,2 @@
 # Notes
+more
diff --git a/tests/old_test.py b/tests/old_test.py
deleted file mode 100644
index 8888888..0000000
--- a/tests/old_test.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
""",
    'js_packages': """diff --git a/client/state/test/index.js b/client/state/test/index.js
index 1212121..3434343 100644
--- a/client/state/test/index.js
+++ b/client/state/test/index.js
@@ -1 +1 @@
-it( 'a' );
+it( 'b' );
diff --git a/client/state/__snapshots__/index.js.snap b/client/state/__snapshots__/index.js.snap
index 5656565..7878787 100644
--- a/client/state/__snapshots__/index.js.snap
+++ b/client/state/__snapshots__/index.js.snap
@@ -1 +1 @@
-old
+new
diff --git a/packages/data/src/test/util.js b/packages/data/src/test/util.js
new file mode 100644
index 0000000..9090909
--- /dev/null
+++ b/packages/data/src/test/util.js
@@ -0,0 +1 @@
+test( 'x' );
diff --git a/test/e2e/specs/login.js b/test/e2e/specs/login.js
index abababa..cdcdcdc 100644
--- a/test/e2e/specs/login.js
+++ b/test/e2e/specs/login.js
@@ -1 +1 @@
--- a comment line
+-- another comment line
""",
    'rename_and_binary': """diff --git a/tests/test_old_name.py b/tests/test_new_name.py
similarity index 90%
rename from tests/test_old_name.py
rename to tests/test_new_name.py
index 9999999..aaaaaaa 100644
--- a/tests/test_old_name.py
+++ b/tests/test_new_name.py
@@ -1 +1 @@
-a = 1
+a = 2
diff --git a/tests/fixtures/img.png b/tests/fixtures/img.png
index bbbbbbb..ccccccc 100644
Binary files a/tests/fixtures/img.png and b/tests/fixtures/img.png differ
""",
    'new_files_only': """diff --git a/src/test/java/FooTest.java b/src/test/java/FooTest.java
new file mode 100644
index 0000000..dddddd1
--- /dev/null
+++ b/src/test/java/FooTest.java
@@ -0,0 +1,2 @@
+class FooTest {
+}
""",
}
MALFORMED = {
    'hunk shorter than expected': "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1,3 +1,3 @@\n-a\n+b\n",
    'hunk longer than expected': "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-a\n+b\n+c\n",
    'not a hunk line': "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,2 @@\n-a\n*b\n",
    'target without source': "+++ b/t.py\n@@ -1 +1 @@\n-a\n+b\n",
    'hunk without a file': "@@ -1 +1 @@\n-a\n+b\n",
}
SPECIAL_IDS = {
    'apache/druid': ['apache__druid-16875'],
    'apache/lucene': ['apache__lucene-13494'],
    'reactivex/rxjava': ['reactivex__rxjava-7597'],
    'valkey-io/valkey': ['valkey-io__valkey-928'],
    'preactjs/preact': ['preactjs__preact-3345'],
}


def eval_script(instance):
    specs = MAP_REPO_VERSION_TO_SPECS[instance['repo']][instance['version']]
    lines = make_eval_script_list(instance, specs, 'testbed', '/testbed', instance['base_commit'], instance['test_patch'])
    script = '\n'.join(['#!/bin/bash', 'set -uxo pipefail'] + lines) + '\n'
    return patch_swebench_multilingual_golden_patch_pass(script, instance['instance_id'])


names = list(PATCHES)
for repo, versions in MAP_REPO_VERSION_TO_SPECS.items():
    for n, version in enumerate(versions):
        ids = SPECIAL_IDS.get(repo, []) if n == 0 else []
        instance_id = ids[0] if ids else f"{repo.replace('/', '__')}-{1000 + n}"
        patch = 'js_packages' if repo == 'Automattic/wp-calypso' and n % 2 == 0 else names[int(hashlib.sha256(f'{repo}{version}'.encode()).hexdigest(), 16) % len(names)]
        instance = {'instance_id': instance_id, 'repo': repo, 'version': version, 'base_commit': hashlib.sha1(instance_id.encode()).hexdigest(), 'test_patch': PATCHES[patch]}
        try:
            cases.append({'kind': 'eval_script', 'instance': instance, 'script': eval_script(instance)})
        except KeyError as e:
            cases.append({'kind': 'eval_script', 'instance': instance, 'error': f'KeyError: {e}'})
for name, patch in MALFORMED.items():
    instance = {'instance_id': 'pallets__flask-1', 'repo': 'pallets/flask', 'version': '2.0', 'base_commit': 'a' * 40, 'test_patch': patch}
    try:
        eval_script(instance)
        cases.append({'kind': 'eval_script', 'name': name, 'instance': instance, 'script': eval_script(instance)})
    except Exception as e:
        cases.append({'kind': 'eval_script', 'name': name, 'instance': instance, 'error': type(e).__name__})

# -- log parsers ------------------------------------------------------------------------------------------

PARSERS = {f.__name__: f for f in MAP_REPO_TO_PARSER.values()}
PARSERS.update({f.__name__: f for f in (parse_log_jest_json, parse_log_minitest, parse_log_cucumber)})
INSTANCE_IDS = {'parse_log_immutable_js': ['immutable-js__immutable-js-2006', 'immutable-js__immutable-js-2005', 'immutable-js__immutable-js-1999'],
                'parse_log_jekyll': ['jekyll__jekyll-9141', 'jekyll__jekyll-8761', 'jekyll__jekyll-1', 'jekyll']}
DOCTEST = ('<?xml version="1.0"?>\n<doctest binary="t"><!-- r -->\n<TestSuite><TestCase name="tc &amp; one">'
           '<SubCase name="s1"><Expression success="true"/><Expression success="true"/></SubCase>'
           '<SubCase name="s2"><Expression success="false"/></SubCase><SubCase><Expression success="true"/></SubCase></TestCase>'
           '<TestCase name="empty"/><TestCase><SubCase name="nested"><SubCase name="inner"/></SubCase></TestCase></TestSuite></doctest>')
LINES = [
    'PASSED tests/test_a.py::test_one', 'FAILED tests/test_a.py::test_two - AssertionError: x - y', 'ERROR tests/test_b.py::test_e',
    'SKIPPED [1] tests/test_c.py:3: no', 'XFAIL tests/test_x.py::test_x', 'PASSED', 'FAILED', 'PASSEDX tests/t.py::t',
    'tests/test_a.py::test_old PASSED', 'tests/test_a.py::test_old FAILED', 'tests/t.py::test_x ERROR',
    'PASSED tests/test_p.py::test_param[/tmp/abc/data.txt]', 'PASSED tests/test_p.py::test_param[//net/x]',
    'PASSED tests/test_p.py::test_param[a*b/c]', 'FAILED tests/test_p.py::test_p[x] - boom', 'PASSED tests/t.py::test_q[a[b]c]',
    'test_one (module.Class) ... ok', 'test_two (module.Class) ... FAIL', 'test_three (module.Class) ... ERROR',
    "test_four (module.Class) ... skipped 'why'", 'FAIL: test_two (module.Class)', 'ERROR: test_three (module.Class)',
    'test_long (module.Class) ... ', 'ok', 'test_x (m.C) ...  OK', 'test_y (m.C) ... OK', '--version is equivalent to version',
    'Applying sites.0002_alter_domain_unique...test_no_migrations (m.C) ... ok', 'FAIL:', 'ERROR:',
    'test_i (m.C) ... Testing against Django installed in \'/d\'\nwith up to 2 processes (0 silenced).\nok',
    'test_j (m.C) ... System check identified no issues (0 silenced)\nok', 'test_k (m.C) ... Internal Server Error: /path/\nok',
    'test_sym_a ok', 'test_sym_b F', 'test_sym_c E', '________ sympy/core/tests/test_basic.py:test_foo ________',
    'PASSED lib/test_x.py::test_click[MouseButton.LEFT]', 'FAILED lib/test_x.py::test_click[MouseButton.RIGHT] - e',
    'lib/test_s.py::test_plot PASSED 10%', 'lib/test_s.py::test_plot FAILED',
    '--- PASS: TestFoo (0.01s)', '--- FAIL: TestBar/sub_case (1.20s)', '--- SKIP: TestBaz (0.00s)', '--- PASS: TestNoTime',
    'test util::tests::it_works ... ok', 'test util::tests::it_fails ... FAILED', 'test util::tests::ignored ... ignored',
    'Carbon\\Tests\\Foo (Carbon\\Tests\\Foo)', ' ✔ Adds two numbers', ' ✘ Fails nicely', ' ↩ Skipped one', '✔ no suite',
    '+ mvn test -B -Dtest=FooTest#bar', '[INFO] BUILD SUCCESS', '[INFO] BUILD FAILURE', '+ ./mvnw test -B -pl core -Dtest=NodeTest',
    '    [junit] [PASS] lombok.TestFoo', '    [junit] [FAIL] lombok.TestBar', '    [junit] [ERR] lombok.TestBaz',
    'io.reactivex.FooTest > testBar PASSED', 'io.reactivex.FooTest > testBaz FAILED', 'FooTest testQux PASSED', '> Task :test PASSED',
    '  ✓ renders (5 ms)', '  ✕ breaks (12ms)', '  ○ skipped test', '  ✓ works 3ms', '  × fails', '  ↓ skipped [skipped]', '✓ plain',
    'Starting browser ChromeHeadless', '  suite one', '    ✔ passes', '    ✖ fails', '  suite two', '      inner', '    back out',
    'SUMMARY:', 'ok 1 first test', 'not ok 2 second test', 'ok 3', 'not ok 10 # skip',
    'Chrome 120.0.0 (Linux x86_64) Chart.helpers should do FAILED', '\x1b[31mChrome 99.1 (Mac OS) Chart x FAILED\x1b[0m',
    '1) marked should parse', '  2) nested one', '  1) p5.Color', '       set():', '    3) flat:', '{', '  "a": 1', '}', '[', ']', '{"x": 1}',
    '<b>bold</b>', '<a><a>x</a>', 'PASS tests/a.test.js (1.23 s)', 'FAIL tests/b.test.js (45ms)', 'PASS tests/c.test.js', 'FAIL src/d.test.js (2s)',
    ' ./node_modules/.bin/jest ', '  describe block', '    ✓ test a (3ms)', '    ✕ test b', '      deeper', '        ✓ deep one', 'Test Suites: 1 failed',
    '✓ no indent', '[ok]: SET and GET (2 ms)', '[err]: GETRANGE fails in tests/unit/type/string.tcl', '[skip]: slow one', '[ignore]: ignored',
    '[err]: plain failure', 'PASS: tests/jqtest', 'FAIL: tests/shtest', 'pass  basics/int.py', 'FAIL  extmod/foo.py', 'skip  misc/x.py',
    '[       OK ] FormatTest.Basic (0 ms)', '[  FAILED  ] FormatTest.Broken (1 ms)', '[ RUN      ] FormatTest.Run',
    'TestFoo#test_bar = 0.01 s = .', 'TestFoo#test_baz = 0.02 s = F', 'Feature: x ....F', 'Scenario y ......',
    'test: foo works:  .', 'TestX#test_y:   F', 'test_z: O', 'Foo bar works - passed', 'Foo baz - failed', 'x - pending',
    '[PASSED] Range > works', '[FAILED] OrderedMap > x', DOCTEST, '<doctest><TestCase name="a"><SubCase name="b"></TestCase></doctest>',
    '<doctest><TestCase name="a"><SubCase name="b"><Expression success="true"/></SubCase></TestCase>', '',
    "+ : '>>>>> Start Test Output'", "+ : '>>>>> End Test Output'",
]
DECOR = ['', '', '', ' ', '  ', '\t', '\u00a0', '\x1c', '\u3000', '\x1b[32m']
TAIL = ['', '', '', '\r', ' ', '\t', '\x85', '\x1b[0m']
HAND = {
    'parse_log_django': ['test_a (m.C) ... ok\ntest_b (m.C) ... \nsome output\nok\ntest_c (m.C) ... FAIL'],
    'parse_log_karma': ['Starting browser X\n  suite one\n    ✔ passes\n  suite two\n    ✖ fails\nSUMMARY:\n    ✔ after summary',
                        'Starting browser X\n    deep\n  shallow\n ✔ a', 'no start\n  ✔ ignored'],
    'parse_log_calypso': ['x ./node_modules/.bin/jest a.js\n  block\n    ✓ one (3ms)\n    ✕ two\n  ● failed\n    ✓ not read', 'before ./node_modules/.bin/jest \n✓ bare'],
    'parse_log_p5js': ['  1) suite\n       test:\n  2) flat\n  flat2:\n<x><x>1</x>\n  3) a\n     b\n       c:'],
    'parse_log_doctest': [DOCTEST, 'before ' + DOCTEST + ' after', '<doctest x="1"/>', 'x<doctest', '12345678<doctest></doctest>'],
}


def parse_case(parser, log, instance_id):
    try:
        statuses = PARSERS[parser](log, SimpleNamespace(instance_id=instance_id))
        return {'statuses': statuses}
    except Exception as e:
        return {'error': type(e).__name__}


logs = [line for line in LINES]
logs += [text for texts in HAND.values() for text in texts]
for _ in range(int(sys.argv[4])):
    logs.append('\n'.join(rng.choice(DECOR) + rng.choice(LINES) + rng.choice(TAIL) for _ in range(rng.randint(1, 14))))
# The logs once; each parse case names its log by index.
cases.append({'kind': 'logs', 'logs': logs})
for parser in sorted(PARSERS):
    for i, log in enumerate(logs):
        for instance_id in INSTANCE_IDS.get(parser, ['owner__repo-1234']):
            cases.append({'kind': 'parse', 'parser': parser, 'instance_id': instance_id, 'log': i, **parse_case(parser, log, instance_id)})

# -- verify -----------------------------------------------------------------------------------------------

START, END = "+ : '>>>>> Start Test Output'\n", "+ : '>>>>> End Test Output'\n"


def row(repo, version, instance_id, f2p, p2p, test_patch=PATCHES['modify_and_add']):
    base = hashlib.sha1(instance_id.encode()).hexdigest()
    return {'repo': repo, 'instance_id': instance_id, 'base_commit': base, 'patch': 'diff --git a/x b/x\n', 'test_patch': test_patch,
            'problem_statement': 'p', 'hints_text': '', 'created_at': '2024-01-01', 'version': version,
            'FAIL_TO_PASS': json.dumps(f2p), 'PASS_TO_PASS': json.dumps(p2p), 'environment_setup_commit': base, 'difficulty': '',
            'subset': 'test', 'split': 'test', 'responses_create_params': {'input': [{'role': 'user', 'content': 'fix it'}]}}


ASTROPY = [json.loads(line) for line in open(Path(sys.argv[2]).resolve() / 'resources_servers/swebench/data/example.jsonl')]
FLASK = row('pallets/flask', '2.0', 'pallets__flask-4045', ['tests/test_a.py::test_new'], ['tests/test_a.py::test_old'])
DJANGO = row('django/django', '4.0', 'django__django-15000', ['test_new (m.C)'], ['test_old (m.C)'])
RUBOCOP = row('rubocop/rubocop', '13705', 'rubocop__rubocop-13705', ['Cop flags it'], ['Cop keeps it'])
CHART = row('chartjs/Chart.js', '3.7', 'chartjs__Chart.js-10007', ['helpers do it'], ['helpers keep it'])
JQ = row('jqlang/jq', '2681', 'jqlang__jq-2681', ['tests/jqtest'], [])
TOKIO = row('tokio-rs/tokio', '4384', 'tokio-rs__tokio-4384', ['net::udp::unwind_safe'], ['net::udp::send'])
SYMPY = row('sympy/sympy', '1.11', 'sympy__sympy-24000', ['test_new'], ['test_old'])
for r in (RUBOCOP, CHART, JQ, TOKIO, SYMPY, DJANGO, FLASK):
    assert r['version'] in MAP_REPO_VERSION_TO_SPECS[r['repo']], (r['repo'], list(MAP_REPO_VERSION_TO_SPECS[r['repo']])[:5])

PATCH = 'diff --git a/core.py b/core.py\n--- a/core.py\n+++ b/core.py\n@@ -1 +1 @@\n-a\n+b\n'
VERIFY = [
    ('flask resolved', FLASK, {'stdout': 'PASSED tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': START + END}),
    ('flask: one F2P fails', FLASK, {'stdout': 'FAILED tests/test_a.py::test_new - boom\nPASSED tests/test_a.py::test_old\n', 'stderr': START + END}),
    ('flask: P2P missing from the log', FLASK, {'stdout': 'PASSED tests/test_a.py::test_new\n', 'stderr': START + END}),
    ('flask: F2P skipped', FLASK, {'stdout': 'SKIPPED tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': START + END}),
    ('flask: F2P xfail', FLASK, {'stdout': 'XFAIL tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': START + END}),
    ('flask: no markers', FLASK, {'stdout': 'PASSED tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': ''}),
    ('flask: only a start marker', FLASK, {'stdout': 'PASSED tests/test_a.py::test_new\n', 'stderr': START}),
    ('flask: a bad code in the log', FLASK, {'stdout': '>>>>> Tests Errored\nPASSED tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': START + END}),
    ('flask: results between the markers win', FLASK, {'stdout': 'PASSED tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': START + 'FAILED tests/test_a.py::test_new\n' + END}),
    ('flask: empty log', FLASK, {'stdout': '', 'stderr': START + END}),
    ('flask: second apply command works', FLASK, {'apply': [1, 0], 'stdout': 'PASSED tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': START + END}),
    ('flask: third apply command works', FLASK, {'apply': [1, 1, 0], 'stdout': 'PASSED tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': START + END}),
    ('flask: no apply command works', FLASK, {'apply': [1, 1, 1], 'stdout': 'PASSED tests/test_a.py::test_new\n', 'stderr': START + END}),
    ('flask: empty model patch', FLASK, {'model_patch': '', 'apply': [1, 1, 0], 'stdout': 'FAILED tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': START + END}),
    ('flask: git diff fails in the agent sandbox', FLASK, {'agent_raises': True, 'apply': [1, 1, 0], 'stdout': '', 'stderr': START + END}),
    ('flask: tests time out', FLASK, {'timeout': True}),
    ('flask: the sandbox fails running the tests', FLASK, {'exec_raises': True}),
    ('flask: nonzero exit, tests pass', FLASK, {'exit_code': 1, 'stdout': 'PASSED tests/test_a.py::test_new\nPASSED tests/test_a.py::test_old\n', 'stderr': START + END}),
    ('django resolved', DJANGO, {'stdout': '', 'stderr': START + 'test_new (m.C) ... ok\ntest_old (m.C) ... ok\n' + END}),
    ('django: F2P errors', DJANGO, {'stdout': '', 'stderr': START + 'test_new (m.C) ... ERROR\ntest_old (m.C) ... ok\n' + END}),
    ('sympy resolved', SYMPY, {'stdout': 'test_new ok\ntest_old ok\n', 'stderr': START + END}),
    ('jq: only its sources apply', JQ, {'apply': [1, 1, 1, 0], 'stdout': 'PASS: tests/jqtest\n', 'stderr': START + END}),
    ('jq: nothing applies', JQ, {'apply': [1, 1, 1, 1], 'stdout': 'PASS: tests/jqtest\n', 'stderr': START + END}),
    ('tokio resolved', TOKIO, {'stdout': 'test net::udp::unwind_safe ... ok\ntest net::udp::send ... ok\n', 'stderr': START + END}),
    ('chart.js fail-only: absent tests pass', CHART, {'stdout': '', 'stderr': START + END}),
    ('chart.js fail-only: a failure', CHART, {'stdout': 'Chrome 120.0 (Linux) helpers do it FAILED\n', 'stderr': START + END}),
    ('rubocop: stdout put between the markers', RUBOCOP, {'stdout': 'Cop flags it - passed\nCop keeps it - passed\n', 'stderr': 'setup\n' + START + 'mid\n' + END + 'after\n'}),
    ('rubocop: two start markers', RUBOCOP, {'stdout': 'Cop flags it - passed\n', 'stderr': START + START + END}),
    ('rubocop: no end marker', RUBOCOP, {'stdout': 'Cop flags it - passed\n', 'stderr': START}),
    ('astropy (NeMo Gym example row) resolved', ASTROPY[0], {'stdout': ''.join(f'PASSED {t}\n' for t in json.loads(ASTROPY[0]['FAIL_TO_PASS']) + json.loads(ASTROPY[0]['PASS_TO_PASS'])), 'stderr': START + END}),
    ('astropy (NeMo Gym example row) one P2P fails', ASTROPY[1], {'stdout': ''.join(f'PASSED {t}\n' for t in json.loads(ASTROPY[1]['FAIL_TO_PASS'])) + ''.join(f'FAILED {t} - x\n' for t in json.loads(ASTROPY[1]['PASS_TO_PASS'])[:1]), 'stderr': START + END}),
]


class FakeAgentSandbox:
    """FAKE: the agent's container, answering verify's `git diff`."""
    def __init__(self, case):
        self.case = case

    async def exec(self, command, **_):
        if self.case.get('agent_raises'):
            raise RuntimeError('agent sandbox gone')
        return SimpleNamespace(return_code=0, stdout=self.case.get('model_patch', PATCH), stderr='', error_type=None)

    async def stop(self):
        pass


class FakeEvalSandbox:
    """FAKE: the verifier's container, answering the apply commands and eval.sh as the case says."""
    _handle = None

    def __init__(self, case):
        self.case, self.uploads, self.applies = case, {}, []

    async def exec(self, command, cwd=None, user=None, timeout_s=None, **_):
        if command == 'pwd':
            return SimpleNamespace(return_code=0, stdout='/testbed\n', stderr='', error_type=None)
        if command.startswith('git apply') or command.startswith('patch '):
            codes = self.case.get('apply', [0])
            code = codes[len(self.applies)] if len(self.applies) < len(codes) else 1
            self.applies.append(command)
            return SimpleNamespace(return_code=code, stdout='', stderr='', error_type=None)
        if command.startswith('git -c core.fileMode=false diff'):
            return SimpleNamespace(return_code=0, stdout='', stderr='', error_type=None)
        if command == '/bin/bash /eval.sh':
            if self.case.get('timeout'):
                raise TimeoutError()
            if self.case.get('exec_raises'):
                raise RuntimeError('sandbox gone')
            return SimpleNamespace(return_code=self.case.get('exit_code', 0), stdout=self.case.get('stdout', ''), stderr=self.case.get('stderr', ''), error_type=None)
        raise AssertionError(f'unexpected exec {command!r}')

    async def upload(self, local_path, remote_path):
        self.uploads[str(remote_path)] = Path(local_path).read_text()

    async def stop(self):
        pass


RESPONSE = {'id': 'r', 'created_at': 0, 'model': 'm', 'object': 'response', 'output': [], 'parallel_tool_calls': False, 'tool_choice': 'auto', 'tools': []}

for n, (name, task, sandbox) in enumerate(VERIFY):
    for golden in ([False, True] if n == 0 else [False]):
        config = app.SwebenchResourcesServerConfig(host='x', port=1, entrypoint='', name='swebench', sandbox_provider='sandbox', sandbox_config={},
                                                   evaluation_timeout=60, is_verifying_golden_patch=golden)
        server = app.SwebenchResourcesServer.model_construct(config=config)
        fake = FakeEvalSandbox(sandbox)

        async def create(self, test_spec, fake=fake):
            return fake
        app.SwebenchResourcesServer._create_sandbox = create
        session = f'session-{n}-{golden}'
        server._session_id_to_sandbox = {session: FakeAgentSandbox(sandbox)}
        body = app.SWEBenchVerifyRequest.model_validate({**task, 'response': RESPONSE})
        out = asyncio.run(server.verify(SimpleNamespace(session={SESSION_ID_KEY: session}), body))
        verdict = {k: getattr(out, k) for k in ('evaluation_completed', 'resolved', 'reward', 'model_patch', 'test_output')}
        cases.append({'kind': 'verify', 'name': name + (' (golden patch)' if golden else ''), 'golden': golden, 'row': task, 'sandbox': sandbox,
                      'verdict': verdict, 'uploads': fake.uploads, 'applies': fake.applies})

with open(OUT, 'w') as f:
    for c in cases:
        f.write(json.dumps(c, ensure_ascii=False) + '\n')
print(f"{len(cases)} cases: {sum(c['kind'] == 'eval_script' for c in cases)} eval scripts, {sum(c['kind'] == 'parse' for c in cases)} parses, {sum(c['kind'] == 'verify' for c in cases)} verifies", file=sys.stderr)
