// SWE-bench 4.1.0's test-log parsers, by the names its MAP_REPO_TO_PARSER gives them: each reads one test
// runner's output into test name → status, with Python's string and regex semantics (src/python), and fails
// (PyError) where SWE-bench's would raise, which leaves the evaluation incomplete.
import { PyError } from '../../python/errors';
import { PyRegex, type PyMatch } from '../../python/regex';
import { PY_WHITESPACE_CLASS, pySplit, pyStrip } from '../../python/str';
import { parseXml, type XmlElement } from './xml';

export type TestStatus = 'FAILED' | 'PASSED' | 'SKIPPED' | 'ERROR' | 'XFAIL';
const STATUSES: TestStatus[] = ['FAILED', 'PASSED', 'SKIPPED', 'ERROR', 'XFAIL'];
export type StatusMap = Map<string, string>;
export type LogParser = (log: string, instanceId: string) => StatusMap;

/** `re.match`: anchored at the start only. */
function matcher(pattern: string, flags = ''): (text: string) => PyMatch | null {
  const re = new PyRegex(`\\A(?:${pattern})`, flags);
  return (text) => re.search(text);
}

/** `parts[i]`, raising IndexError as Python does past the end. */
function at(parts: string[], i: number): string {
  if (i >= parts.length) throw new PyError('IndexError', 'list index out of range');
  return parts[i]!;
}

const LEADING_WS = new RegExp(`^[${PY_WHITESPACE_CLASS}]*`, 'u');
/** `len(line) - len(line.lstrip())`. */
const indentOf = (line: string) => LEADING_WS.exec(line)![0].length;

const ANSI = new PyRegex('\\x1B(?:[@-Z\\\\-_]|\\[[0-?]*[ -/]*[@-~])');
/** SWE-bench's ansi_escape. */
const ansiEscape = (text: string) => ANSI.sub(text, () => '');

const startsWithStatus = (line: string) => STATUSES.some((s) => line.startsWith(s));

// Python (pytest and friends, django, sympy).

/** pytest's status lines, each as its status and test name (a FAILED line's " - " reason joined in). */
function* pytestStatusLines(log: string): Generator<[status: string, name: string]> {
  for (let line of log.split('\n')) {
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const testCase = pySplit(line);
    if (testCase.length > 1) yield [testCase[0]!, testCase[1]!];
  }
}

function parsePytest(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const [status, name] of pytestStatusLines(log)) map.set(name, status);
  return map;
}

const OPTION = new PyRegex('(.*?)\\[(.*)\\]');

function parsePytestOptions(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const [status, test] of pytestStatusLines(log)) {
    const option = OPTION.search(test);
    let name = test;
    if (option) {
      const main = option.groups[0]!;
      let value = option.groups[1]!;
      // A path parameter is kept by its last part, so the name does not depend on where the repository is.
      if (value.startsWith('/') && !value.startsWith('//') && !value.includes('*')) value = `/${value.split('/').at(-1)}`;
      name = `${main}[${value}]`;
    }
    map.set(name, status);
  }
  return map;
}

const DJANGO_PASS_SUFFIXES = [' ... ok', ' ... OK', ' ...  OK'];
/** Django's runner sometimes prints a long message between a test's name and its "ok". */
const DJANGO_INTERRUPTED = [
  new PyRegex('^(.*?)\\s\\.\\.\\.\\sTesting\\ against\\ Django\\ installed\\ in\\ ((?s:.*?))\\ silenced\\)\\.\\nok$', 'm'),
  new PyRegex('^(.*?)\\s\\.\\.\\.\\sInternal\\ Server\\ Error:\\ \\/(.*)\\/\\nok$', 'm'),
  new PyRegex('^(.*?)\\s\\.\\.\\.\\sSystem check identified no issues \\(0 silenced\\)\\nok$', 'm'),
];

function parseDjango(log: string): StatusMap {
  const map: StatusMap = new Map();
  let prevTest: string | undefined;
  for (const raw of log.split('\n')) {
    let line = pyStrip(raw);
    if (line.includes('--version is equivalent to version')) map.set('--version is equivalent to version', 'PASSED');
    if (line.includes(' ... ')) prevTest = line.split(' ... ')[0]!;
    for (const suffix of DJANGO_PASS_SUFFIXES) {
      if (!line.endsWith(suffix)) continue;
      // django__django-7188 prints a migration's progress on the test's own line.
      if (pyStrip(line).startsWith('Applying sites.0002_alter_domain_unique...test_no_migrations')) line = pyStrip(line.split('...').slice(1).join('...'));
      map.set(line.slice(0, line.lastIndexOf(suffix)), 'PASSED');
      break;
    }
    if (line.includes(' ... skipped')) map.set(line.split(' ... skipped')[0]!, 'SKIPPED');
    if (line.endsWith(' ... FAIL')) map.set(line.split(' ... FAIL')[0]!, 'FAILED');
    if (line.startsWith('FAIL:')) map.set(pyStrip(at(pySplit(line), 1)), 'FAILED');
    if (line.endsWith(' ... ERROR')) map.set(line.split(' ... ERROR')[0]!, 'ERROR');
    if (line.startsWith('ERROR:')) map.set(pyStrip(at(pySplit(line), 1)), 'ERROR');
    // "ok" on a line of its own: the test before it passed after printing more.
    if (line.startsWith('ok') && prevTest !== undefined) map.set(prevTest, 'PASSED');
  }
  for (const pattern of DJANGO_INTERRUPTED) for (const m of pattern.matches(log)) map.set(m.groups[0]!, 'PASSED');
  return map;
}

const SGR = new PyRegex('\\[(\\d+)m');
/** str.translate deleting the control characters 1-31 (not NUL). */
const CONTROLS = /[\x01-\x1f]/g;

function parsePytestV2(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of log.split('\n')) {
    let line = SGR.sub(raw, () => '').replace(CONTROLS, '');
    if (startsWithStatus(line)) {
      if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
      const testCase = pySplit(line);
      if (testCase.length >= 2) map.set(testCase[1]!, testCase[0]!);
    } else if (STATUSES.some((s) => line.endsWith(s))) {
      // Older pytest prints the status after the name.
      const testCase = pySplit(line);
      if (testCase.length >= 2) map.set(testCase[0]!, testCase[1]!);
    }
  }
  return map;
}

function parseSeaborn(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of log.split('\n')) {
    if (line.startsWith('FAILED')) map.set(at(pySplit(line), 1), 'FAILED');
    else if (line.includes(' PASSED ')) {
      const parts = pySplit(line);
      if (at(parts, 1) === 'PASSED') map.set(parts[0]!, 'PASSED');
    } else if (line.startsWith('PASSED')) map.set(at(pySplit(line), 1), 'PASSED');
  }
  return map;
}

const SYMPY_FAILURE = new PyRegex('(_*) (.*)\\.py:(.*) (_*)');

function parseSympy(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const m of SYMPY_FAILURE.findall(log) as string[][]) map.set(`${m[1]}.py:${m[2]}`, 'FAILED');
  for (const raw of log.split('\n')) {
    const line = pyStrip(raw);
    if (!line.startsWith('test_')) continue;
    if (line.endsWith(' E')) map.set(at(pySplit(line), 0), 'ERROR');
    if (line.endsWith(' F')) map.set(at(pySplit(line), 0), 'FAILED');
    if (line.endsWith(' ok')) map.set(at(pySplit(line), 0), 'PASSED');
  }
  return map;
}

function parseMatplotlib(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of log.split('\n')) {
    let line = raw.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3');
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const testCase = pySplit(line);
    if (testCase.length <= 1) continue;
    map.set(testCase[1]!, testCase[0]!);
  }
  return map;
}

/** A parser that matches each stripped line against one pattern and maps its outcome group to a status. */
function lineParser(pattern: string, read: (groups: (string | undefined)[]) => [string, string | undefined] | undefined): (log: string) => StatusMap {
  const match = matcher(pattern);
  return (log) => {
    const map: StatusMap = new Map();
    for (const raw of log.split('\n')) {
      const m = match(pyStrip(raw));
      if (!m) continue;
      const read_ = read(m.groups);
      if (read_ && read_[1] !== undefined) map.set(read_[0], read_[1]);
    }
    return map;
  };
}

const statusOf = (table: Record<string, TestStatus>) => (outcome: string | undefined) => (outcome === undefined ? undefined : table[outcome]);

// Go, Rust, PHP, Java.

const goStatus = statusOf({ PASS: 'PASSED', FAIL: 'FAILED', SKIP: 'SKIPPED' });
const parseGotest = lineParser('^--- (PASS|FAIL|SKIP): (.+) \\((.+)\\)$', (g) => [g[1]!, goStatus(g[0])]);

const cargoStatus = statusOf({ ok: 'PASSED', FAILED: 'FAILED' });
const parseCargo = lineParser('^test\\s+(\\S+)\\s+\\.\\.\\.\\s+(\\w+)$', (g) => [g[0]!, cargoStatus(g[1])]);

const PHPUNIT_SUITE = matcher('^(\\w.+) \\(.+\\)$');
const PHPUNIT_TEST = matcher('^\\s*([✔✘↩])\\s*(.*)$');
const phpunitStatus = statusOf({ '✔': 'PASSED', '✘': 'FAILED', '↩': 'SKIPPED' });

function parsePhpunit(log: string): StatusMap {
  const map: StatusMap = new Map();
  let suite: string | undefined;
  for (const line of log.split('\n')) {
    const suiteMatch = PHPUNIT_SUITE(line);
    if (suiteMatch) {
      suite = suiteMatch.groups[0];
      continue;
    }
    const test = PHPUNIT_TEST(line);
    if (!test) continue;
    const status = phpunitStatus(test.groups[0]);
    if (status) map.set(`${suite ?? 'None'} > ${test.groups[1]}`, status);
  }
  return map;
}

const MAVEN_TEST = matcher('^.*-Dtest=(\\S+).*$');
const MAVEN_RESULT = matcher('^.*BUILD (SUCCESS|FAILURE)$');

/** Maven prints no passing tests: each is run alone, named by its -Dtest= command (the script's set -x trace). */
function parseMaven(log: string): StatusMap {
  const map: StatusMap = new Map();
  let current = '---NO TEST NAME FOUND YET---';
  for (const raw of log.split('\n')) {
    const line = pyStrip(raw);
    const name = MAVEN_TEST(line);
    if (name) current = name.groups[0]!;
    const result = MAVEN_RESULT(line);
    if (result) map.set(current, result.groups[0] === 'SUCCESS' ? 'PASSED' : 'FAILED');
  }
  return map;
}

const antStatus = statusOf({ PASS: 'PASSED', FAIL: 'FAILED', ERR: 'FAILED' });
const parseAnt = lineParser('^\\s*\\[junit\\]\\s+\\[(PASS|FAIL|ERR)\\]\\s+(.*)$', (g) => [g[1]!, antStatus(g[0])]);

const gradleStatus = statusOf({ PASSED: 'PASSED', FAILED: 'FAILED' });
const parseGradleCustom = lineParser('^([^>].+)\\s+(PASSED|FAILED)$', (g) => [g[0]!, gradleStatus(g[1])]);

// JavaScript.

function parseCalypso(log: string): StatusMap {
  const map: StatusMap = new Map();
  let suite: [string, number][] = [];
  const nameOf = (pattern: string, line: string) => {
    const m = matcher(pattern)(line);
    if (!m) throw new PyError('AttributeError', "'NoneType' object has no attribute 'group'");
    return pyStrip(`${suite.map((s) => s[0]).join(' - ')} - ${m.groups[0]}`);
  };
  const timed = new PyRegex('\\(\\d+ms\\)');
  for (const run of log.split(' ./node_modules/.bin/jest ').slice(1)) {
    for (const line of run.split('\n')) {
      if (['Test Suites', '  ● '].some((x) => line.startsWith(x))) break;
      const stripped = pyStrip(line);
      if (stripped.startsWith('✓')) {
        map.set(nameOf(timed.search(line) ? '^\\s+✓\\s(.*)\\(\\d+ms\\)$' : '^\\s+✓\\s(.*)', line), 'PASSED');
      } else if (stripped.startsWith('✕')) {
        map.set(nameOf(timed.search(line) ? '^\\s+✕\\s(.*)\\(\\d+ms\\)$' : '^\\s+✕\\s(.*)', line), 'FAILED');
      } else if (indentOf(line) > 0) {
        // An indented line names a describe block, nested by its indent.
        const indent = indentOf(line);
        if (suite.length === 0) suite = [[stripped, indent]];
        else {
          while (suite.length > 0 && suite.at(-1)![1] >= indent) suite.pop();
          suite.push([stripped, indent]);
        }
      }
    }
  }
  return map;
}

const CHART_FAILURE = new PyRegex('Chrome\\s[\\d\\.]+[^\\S\\r\\n]\\(.+?\\)[^\\S\\r\\n](.*)FAILED$', 'm');

function parseChartJs(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const failure of CHART_FAILURE.findall(ansiEscape(log)) as string[]) map.set(failure, 'FAILED');
  return map;
}

const MARKED_FAILURE = new PyRegex('^\\d+\\)\\s(.*)');

function parseMarked(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of log.split('\n')) {
    const m = MARKED_FAILURE.search(line);
    if (m) map.set(pyStrip(m.groups[0]!), 'FAILED');
  }
  return map;
}

/** p5.js's log without the JSON objects and arrays its tests print (whose lines would read as failures). */
function withoutJsonBlocks(log: string): string {
  const kept: string[] = [];
  let inObject = false;
  let inList = false;
  for (const line of log.split('\n')) {
    const trimmed = line.replace(new RegExp(`[${PY_WHITESPACE_CLASS}]+$`, 'u'), '');
    if (trimmed.endsWith('{')) {
      inObject = true;
      continue;
    }
    if (trimmed.endsWith('[')) {
      inList = true;
      continue;
    }
    if (trimmed === '}' && inObject) {
      inObject = false;
      continue;
    }
    if (trimmed === ']' && inList) {
      inList = false;
      continue;
    }
    if (inObject || inList) continue;
    if (trimmed.startsWith('{') && trimmed.endsWith('}')) continue;
    if (trimmed.startsWith('[') && trimmed.endsWith(']')) continue;
    kept.push(line);
  }
  return kept.join('\n');
}

const XML_BLOCK = new PyRegex('<(\\w+)>[\\s\\S]*?<\\/\\1>', 'm');

/** p5.js's log without <tag>…</tag> blocks, innermost first, keeping the openings they swallowed. */
function withoutXmlBlocks(log: string): string {
  let text = log;
  for (let m = XML_BLOCK.search(text); m; m = XML_BLOCK.search(text)) {
    const open = `<${m.groups[0]}>`;
    const openings = Math.max(m.text.split(open).length - 1 - 1, 0);
    text = text.slice(0, m.start) + open.repeat(openings) + text.slice(m.end);
  }
  return text;
}

const P5_FAILURE = new PyRegex('^\\s*(\\d+)\\)(.{0,1000}?):', 'ms');

function parseP5js(log: string): StatusMap {
  const map: StatusMap = new Map();
  const text = withoutXmlBlocks(withoutJsonBlocks(ansiEscape(log)));
  for (const m of P5_FAILURE.matches(text)) {
    // A failure's title lines are each indented deeper than the last.
    let last = 0;
    let valid = true;
    for (const line of m.groups[1]!.split('\n')) {
      const indent = indentOf(line);
      if (indent <= last) {
        valid = false;
        break;
      }
      last = indent;
    }
    if (valid)
      map.set(
        m.groups[1]!.split('\n')
          .map((l) => pyStrip(l))
          .join(':'),
        'FAILED',
      );
  }
  return map;
}

const REACT_PDF: [PyRegex, TestStatus][] = [
  ['^PASS\\s(.*)\\s\\([\\d\\.]+ms\\)', 'PASSED'],
  ['^PASS\\s(.*)\\s\\([\\d\\.]+\\ss\\)', 'PASSED'],
  ['^PASS\\s(.*)\\s\\([\\d\\.]+s\\)', 'PASSED'],
  ['^PASS\\s(.*)', 'PASSED'],
  ['^FAIL\\s(.*)\\s\\([\\d\\.]+ms\\)', 'FAILED'],
  ['^FAIL\\s(.*)\\s\\([\\d\\.]+\\ss\\)', 'FAILED'],
  ['^FAIL\\s(.*)\\s\\([\\d\\.]+s\\)', 'FAILED'],
  ['^FAIL\\s(.*)', 'FAILED'],
].map(([p, s]) => [new PyRegex(p!), s as TestStatus]);

function parseReactPdf(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of log.split('\n')) {
    for (const [re, status] of REACT_PDF) {
      const m = re.search(line);
      if (m) {
        map.set(m.groups[0]!, status);
        break;
      }
    }
  }
  return map;
}

const jestStatus = statusOf({ '✓': 'PASSED', '✕': 'FAILED', '○': 'SKIPPED' });
const parseJest = lineParser('^\\s*(✓|✕|○)\\s(.+?)(?:\\s\\((\\d+\\s*m?s)\\))?$', (g) => [g[1]!, jestStatus(g[0])]);

const jsonStatus = statusOf({ PASSED: 'PASSED', FAILED: 'FAILED' });
const parseJestJson = lineParser('^\\[(PASSED|FAILED)\\]\\s(.+)$', (g) => [g[1]!, jsonStatus(g[0])]);

const vitestStatus = statusOf({ '✓': 'PASSED', '×': 'FAILED', '↓': 'SKIPPED' });
const parseVitest = lineParser('^\\s*(✓|×|↓)\\s(.+?)(?:\\s(\\d+\\s*m?s?|\\[skipped\\]))?$', (g) => [g[1]!, vitestStatus(g[0])]);

const KARMA_LINE = matcher('^(\\s*)?([✔✖])?\\s(.*)$');

/** Karma's reporter: describe blocks by indent, results as ✔/✖ lines, between "Starting browser" and SUMMARY. */
function parseKarma(log: string): StatusMap {
  const map: StatusMap = new Map();
  let currentIndent = -1;
  const suite: string[] = [];
  let started = false;
  for (const line of log.split('\n')) {
    if (line.startsWith('SUMMARY:')) return map;
    if (line.includes('Starting browser')) {
      started = true;
      continue;
    }
    if (!started) continue;
    const m = KARMA_LINE(line);
    if (!m) continue;
    const [indent, status, name] = m.groups;
    if (indent && !status) {
      if (indent.length > currentIndent) {
        currentIndent = indent.length;
        suite.push(name!);
      } else if (indent.length < currentIndent) {
        currentIndent = indent.length;
        if (suite.length === 0) throw new PyError('IndexError', 'pop from empty list');
        suite.pop();
        continue;
      }
    }
    if (status === '✔' || status === '✖') map.set([...suite, name!].join(' > '), status === '✔' ? 'PASSED' : 'FAILED');
  }
  return map;
}

const tapStatus = statusOf({ ok: 'PASSED', 'not ok': 'FAILED' });
const parseTap = lineParser('^(ok|not ok) (\\d+) (.+)$', (g) => [g[2]!, tapStatus(g[0])]);

/** immutable-js's instances use different runners: chosen by the pull request number ending the instance id. */
function parseImmutableJs(log: string, instanceId: string): StatusMap {
  const pr = instanceId.split('-').at(-1);
  if (pr === '2006') return parseJest(log);
  if (pr === '2005') return parseJestJson(log);
  throw new PyError('ValueError', `Unknown instance id: ${instanceId}`);
}

// C.

const REDIS_LINE = matcher('^\\[(ok|err|skip|ignore)\\]:\\s(.+?)(?:\\s\\((\\d+\\s*m?s)\\))?$');
const REDIS_FILE = new PyRegex('\\s+in\\s+\\S+$');

function parseRedis(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of log.split('\n')) {
    const m = REDIS_LINE(pyStrip(raw));
    if (!m) continue;
    const [status, name] = m.groups as [string, string];
    if (status === 'ok') map.set(name, 'PASSED');
    // A failure names the file it failed in: not part of the test's name.
    else if (status === 'err')
      map.set(
        REDIS_FILE.sub(name, () => ''),
        'FAILED',
      );
    else map.set(name, 'SKIPPED');
  }
  return map;
}

const jqStatus = statusOf({ PASS: 'PASSED', FAIL: 'FAILED' });
const parseJq = lineParser('^\\s*(PASS|FAIL):\\s(.+)$', (g) => [g[1]!, jqStatus(g[0])]);

function descendants(element: XmlElement, tag: string): XmlElement[] {
  const out: XmlElement[] = [];
  const visit = (e: XmlElement) => {
    for (const child of e.children) {
      if (child.tag === tag) out.push(child);
      visit(child);
    }
  };
  visit(element);
  return out;
}

/** doctest's XML reporter (`-r=xml`): a subcase passes when every expression in it succeeded. */
function parseDoctest(log: string): StatusMap {
  const map: StatusMap = new Map();
  const start = log.indexOf('<doctest');
  if (start === -1) return map;
  // As SWE-bench computes it: without a closing tag, find()'s -1 plus the tag's length.
  const end = log.indexOf('</doctest>', start) + '</doctest>'.length;
  const root = parseXml(log.slice(start, end));
  for (const testCase of descendants(root, 'TestCase')) {
    for (const subCase of descendants(testCase, 'SubCase')) {
      const passed = descendants(subCase, 'Expression').every((e) => e.attributes.get('success') === 'true');
      map.set(`${testCase.attributes.get('name') ?? 'None'} > ${subCase.attributes.get('name') ?? 'None'}`, passed ? 'PASSED' : 'FAILED');
    }
  }
  return map;
}

const micropythonStatus = statusOf({ pass: 'PASSED', FAIL: 'FAILED', skip: 'SKIPPED' });
const parseMicropython = lineParser('^(pass|FAIL|skip)\\s+(.+)$', (g) => [g[1]!, micropythonStatus(g[0])]);

const gtestStatus = statusOf({ OK: 'PASSED', FAILED: 'FAILED' });
const parseGoogletest = lineParser('^.*\\[\\s*(OK|FAILED)\\s*\\]\\s(.*)\\s\\(.*\\)$', (g) => [g[1]!, gtestStatus(g[0])]);

// Ruby.

const minitestStatus = statusOf({ '.': 'PASSED', F: 'FAILED', E: 'FAILED' });
const parseMinitest = lineParser('^(.+)\\. .*=.*(\\.|F|E).*$', (g) => [g[0]!, minitestStatus(g[1])]);

const cucumberStatus = statusOf({ '.': 'PASSED', F: 'FAILED' });
const parseCucumber = lineParser('^(.*) \\.+(\\.|F)', (g) => [g[0]!, cucumberStatus(g[1])]);

const rubyUnitStatus = statusOf({ '.': 'PASSED', E: 'FAILED', F: 'FAILED', O: 'SKIPPED' });
const parseRubyUnit = lineParser('^\\s*(?:test: )?(.+):\\s+(\\.|E\\b|F\\b|O\\b)', (g) => [g[0]!, rubyUnitStatus(g[1])]);

const rspecStatus = statusOf({ passed: 'PASSED', failed: 'FAILED' });
const parseRspecTransformedJson = lineParser('(.+) - (passed|failed)', (g) => [g[0]!, rspecStatus(g[1])]);

/** jekyll's instances use minitest or cucumber: chosen by the pull request number in the instance id. */
function parseJekyll(log: string, instanceId: string): StatusMap {
  const pr = at(instanceId.split('-'), 1);
  if (['9141', '8047', '8167'].includes(pr)) return parseMinitest(log);
  if (['8761', '8771'].includes(pr)) return parseCucumber(log);
  throw new PyError('ValueError', `Unknown instance id: ${instanceId}`);
}

export const LOG_PARSERS: Readonly<Record<string, LogParser>> = {
  parse_log_pytest: parsePytest,
  parse_log_pytest_options: parsePytestOptions,
  parse_log_django: parseDjango,
  parse_log_pytest_v2: parsePytestV2,
  parse_log_seaborn: parseSeaborn,
  parse_log_sympy: parseSympy,
  parse_log_matplotlib: parseMatplotlib,
  parse_log_gotest: parseGotest,
  parse_log_cargo: parseCargo,
  parse_log_phpunit: parsePhpunit,
  parse_log_maven: parseMaven,
  parse_log_ant: parseAnt,
  parse_log_gradle_custom: parseGradleCustom,
  parse_log_calypso: parseCalypso,
  parse_log_chart_js: parseChartJs,
  parse_log_marked: parseMarked,
  parse_log_p5js: parseP5js,
  parse_log_react_pdf: parseReactPdf,
  parse_log_jest: parseJest,
  parse_log_jest_json: parseJestJson,
  parse_log_vitest: parseVitest,
  parse_log_karma: parseKarma,
  parse_log_tap: parseTap,
  parse_log_immutable_js: parseImmutableJs,
  parse_log_redis: parseRedis,
  parse_log_jq: parseJq,
  parse_log_doctest: parseDoctest,
  parse_log_micropython_test: parseMicropython,
  parse_log_googletest: parseGoogletest,
  parse_log_minitest: parseMinitest,
  parse_log_cucumber: parseCucumber,
  parse_log_ruby_unit: parseRubyUnit,
  parse_log_rspec_transformed_json: parseRspecTransformedJson,
  parse_log_jekyll: parseJekyll,
};
