"""Differential cases for Gymflow's aviary_hotpotqa: plays episodes of tool calls through Aviary's own
HotPotQAEnv (aviary.hotpotqa 0.37.0, fhaviary 0.37.0) and records each tool reply, the per-step reward and
done flag, as NeMo Gym's aviary agent sees them (the episode stops at done). Wikipedia is not reachable
here: each query's answer is put in Aviary's own wiki cache as HTML made from the case's page snapshot
(a recorded search answer, else the page with that exact title), so Aviary's HTML parsing, page
cleaning, sentence summary, lookup cursor and answer check all run unchanged.

Usage: python aviary_hotpotqa.cases.py <seed> <generated episodes> <out.jsonl>   (this file: seed 13, 300)
       in a venv with fhaviary==0.37.0, aviary.hotpotqa==0.37.0 (--no-deps), beautifulsoup4, tenacity,
       httpx-aiohttp; `datasets` (only Aviary's dataset loader needs it) is stubbed.
"""
import asyncio, html, json, random, sys, types, warnings

sys.modules["datasets"] = types.SimpleNamespace(load_dataset=None)
warnings.simplefilter("ignore")
from aviary.core import ToolCall, ToolCallFunction, ToolRequestMessage  # noqa: E402
from aviary.envs.hotpotqa import HotPotQAEnv  # noqa: E402

rng = random.Random(int(sys.argv[1]))

WIKIS = [
    {"pages": {
        "Milhouse Van Houten": [
            "Milhouse Mussolini Van Houten is a fictional character in The Simpsons. He is Bart Simpson's best friend. He is insecure. He wears glasses. He has blue hair. He is ten",
            "Milhouse was named after U.S. president Richard Milhous Nixon. The name was the most unfortunate name Groening could think of.",
            "Short para",
            "Milhouse's last name was given by Howard Gewirtz.",
            "In 2025 Milhouse appeared in the Simpsons' 800th episode, named after nothing.",
        ],
        "Richard Nixon": ["Richard Milhous Nixon was the 37th president of the United States. He was a Republican."],
        "Mercury": ["Mercury may refer to:", "Mercury (planet), the first planet"],
        "Straße": ["Die Straße ist eine Straße in München. Sie ist lang. Café Ärger liegt dort.", "  Leading and trailing spaces matter not.  "],
        "Backslash": ["A page with an escaped\\nline break and a tab\\tinside. Then more text.", "Ünïcödé \\n stays as written here."],
    },
     "searches": {
        "Milhouse": {"page": "Milhouse Van Houten"},
        "[Mercury]": {"similar": ["Mercury (planet)", "Mercury (element)", "Freddie Mercury", "Mercury Records", "Mercury (mythology)", "Mercury Prize"]},
        "Nixon's friend": {"similar": []},
        "Groening": {"similar": ["Matt Groening", "Groening's \"Life in Hell\"", "It's Groening"]},
    }},
    {"pages": {
        "The Oberoi Group": ["The Oberoi Group is a luxury hotel group with its head office in New Delhi, India.[2] Founded in 1934, it owns hotels.[3]", "The group's chairman is Arjun Singh Oberoi.", "Oberoi hotels are in Delhi, Mumbai and Bali."],
        "Delhi": ["Delhi, officially the National Capital Territory of Delhi, is a city in India. New Delhi is its part."],
        "Empty": ["two words", "x"],
    },
     "searches": {"Oberoi hotel company": {"similar": ["The Oberoi Group", "Mohan Singh Oberoi", "Oberoi Udaivilas", "Trident Hotel, Nariman Point", "Prithvi Raj Singh Oberoi"]}}},
]

GOLDS = ["President Richard Nixon", "Delhi", "Arthur's Magazine", "The Beatles", "1844", "Straße", "İstanbul", "a", "  An apple  ", "U.S.A.", "café", "Dıyarbakır", "3.14"]
ANSWERS = ["Richard Nixon", "president richard nixon!", "It was President Richard Nixon.", "NEW DELHI, India", "delhi", "Delhi’s", "Arthurs Magazine", "Arthur’s Magazine",
           "the beatles", "Beatles", "an apple", "apple", "USA", "u s a", "U.S.A.", "Café", "CAFÉ", "strasse", "STRASSE", "Straße", "istanbul", "i̇stanbul", "İSTANBUL",
           "diyarbakir", "DIYARBAKIR", "dıyarbakır", "1844 (first)", "18 44", "3.14", "314", "pi is 3.14", "", " ", "a", "\u00a0Delhi\u2003", "the", "Delhi\tNew"]


def html_for(wiki, query):
    found = wiki["searches"].get(query)
    if found is None and query in wiki["pages"]:
        found = {"page": query}
    if found is None:
        return None
    if "similar" in found:
        return "<html><body>" + "".join(f'<div class="mw-search-result-heading"><a>{html.escape(t)}</a></div>' for t in found["similar"]) + "</body></html>"
    return "<html><body>" + "".join(f"<p>{html.escape(p)}</p>" for p in wiki["pages"][found["page"]]) + "</body></html>"


def known_queries(wiki):
    return list(wiki["pages"]) + list(wiki["searches"])


async def play(wiki, gold, calls):
    HotPotQAEnv.wiki_cache.clear()
    for q in set(known_queries(wiki)) | {f"[{q}]" for q in known_queries(wiki)}:
        page = html_for(wiki, q)
        if page is not None:
            HotPotQAEnv.wiki_cache[q.replace(" ", "+")] = page
    env = HotPotQAEnv(question_id=None, question="Q?", correct_answer=gold)
    await env.reset()
    steps = []
    for i, (name, args) in enumerate(calls):
        action = ToolRequestMessage(tool_calls=[ToolCall(id=f"c{i}", function=ToolCallFunction(name=name, arguments=args))])
        try:
            obs, reward, done, _ = await env.step(action)
            steps.append({"output": obs[0].content, "reward": reward, "done": done})
        except Exception as e:  # what NeMo Gym's /step answers with a 500
            steps.append({"error": f"{type(e).__name__}: {e}"})
            break
        if done:
            break
    return steps


def random_calls(wiki):
    queries = known_queries(wiki)
    keywords = ["named", "Milhouse", "milhouse", "Delhi", "the", "Oberoi", "zzz", "ß", "STRASSE", "Straße", "", "\\n", "president", " ", "é"]
    calls = []
    for _ in range(rng.randint(1, 7)):
        kind = rng.random()
        if kind < 0.4:
            calls.append(("search", {"entity": rng.choice(queries + ([""] if rng.random() < 0.1 else []))}))
        elif kind < 0.85:
            calls.append(("lookup", {"keyword": rng.choice(keywords)}))
        else:
            calls.append(("submit_answer", {"answer": rng.choice(ANSWERS)}))
    if rng.random() < 0.7:
        calls.append(("submit_answer", {"answer": rng.choice(ANSWERS)}))
    return calls


HAND = [
    (0, "President Richard Nixon", [("search", {"entity": "Milhouse"}), ("lookup", {"keyword": "named after"}), ("lookup", {"keyword": "named after"}), ("lookup", {"keyword": "named after"}), ("submit_answer", {"answer": "President Richard Nixon"})]),
    (0, "President Richard Nixon", [("lookup", {"keyword": "Nixon"}), ("search", {"entity": "Nixon's friend"}), ("lookup", {"keyword": "Nixon"}), ("search", {"entity": "Richard Nixon"}), ("lookup", {"keyword": "nixon"}), ("submit_answer", {"answer": "richard nixon"})]),
    (0, "Mercury", [("search", {"entity": "Mercury"}), ("lookup", {"keyword": "planet"})]),
    (0, "x", [("search", {"entity": "Groening"}), ("search", {"entity": ""}), ("submit_answer", {"answer": "x"})]),
    (0, "x", [("search", {"entity": "Straße"}), ("lookup", {"keyword": "STRASSE"}), ("lookup", {"keyword": "straße"}), ("lookup", {"keyword": ""})]),
    (0, "x", [("search", {"entity": "Backslash"}), ("lookup", {"keyword": "line break"}), ("lookup", {"keyword": "Ünïcödé"})]),
    (1, "Delhi", [("search", {"entity": "Oberoi hotel company"}), ("search", {"entity": "The Oberoi Group"}), ("lookup", {"keyword": "Delhi"}), ("lookup", {"keyword": "Delhi"}), ("lookup", {"keyword": "Delhi"}), ("lookup", {"keyword": "Delhi"}), ("lookup", {"keyword": "delhi"}), ("submit_answer", {"answer": "New Delhi"})]),
    (1, "Delhi", [("search", {"entity": "Empty"}), ("lookup", {"keyword": "two"}), ("submit_answer", {"answer": ""})]),
    (1, "Delhi", [("submit_answer", {"answer": 5})]),
    (1, "Delhi", [("search", {"query": "Delhi"})]),
]

cases = []
for wiki_idx, gold, calls in HAND:
    cases.append((wiki_idx, gold, calls))
for gold in GOLDS:
    for answer in ANSWERS:
        cases.append((0, gold, [("submit_answer", {"answer": answer})]))
for _ in range(int(sys.argv[2])):
    wiki_idx = rng.randrange(len(WIKIS))
    cases.append((wiki_idx, rng.choice(GOLDS), random_calls(WIKIS[wiki_idx])))

with open(sys.argv[3], "w") as f:
    for wiki_idx, gold, calls in cases:
        steps = asyncio.run(play(WIKIS[wiki_idx], gold, calls))
        f.write(json.dumps({"wiki": WIKIS[wiki_idx], "answer": gold, "calls": [[n, a] for n, a in calls], "steps": steps}, ensure_ascii=False) + "\n")
print(len(cases), "cases")
