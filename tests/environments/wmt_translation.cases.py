"""Differential cases for Gymflow's wmt_translation: scores generated hypothesis/reference pairs with the real
sacrebleu (`sentence_chrf`, and `sentence_bleu` with its default 13a tokenizer) after NeMo Gym 0.7.0's
verify preprocessing (reasoning preamble stripped, text stripped, both sides NFC).

Usage: python wmt_translation.cases.py <seed> <count> <out.jsonl>   (needs sacrebleu==2.6.0; this file: seed 24, 400)
"""
import sys, json, random, unicodedata
import sacrebleu

rng = random.Random(int(sys.argv[1]))
REFS = [
    "Das Wetter ist heute schön.", "Por favor, pásame la sal.", "Je voudrais une tasse de café.", "Il treno arriva alle nove.",
    "おはようございます、お元気ですか？", "مرحبا، كيف حالك اليوم؟", "Привет, как дела? Всё хорошо.", "我们明天早上九点在车站见面。",
    "The price rose 3,5% to 1,234.56 dollars in 2023-24.", "A&amp;B said &quot;no&quot; &lt;twice&gt; - really.", "Zoë’s naïve café 🍕 costs €4.",
    "e\u0301te\u0301 a\u0300 Paris", "Line one-\nline two\nthree <skipped> four", "¿Qué tal? ¡Muy bien!", "नमस्ते, आप कैसे हैं?",
    "Ngiyabonga kakhulu, mngane wami.", "Tôi muốn một tách cà phê.", "10-20 people (approx.) came; others didn't.",
]
def perturb(s):
    words = s.split()
    op = rng.choice(["same", "drop", "swap", "dup", "chars", "case", "punct", "space", "shuffle", "prefix", "nfd", "empty", "other"])
    if op == "drop" and len(words) > 1: words.pop(rng.randrange(len(words))); return " ".join(words)
    if op == "swap" and len(words) > 1:
        i = rng.randrange(len(words) - 1); words[i], words[i + 1] = words[i + 1], words[i]; return " ".join(words)
    if op == "dup": return s + " " + rng.choice(words)
    if op == "chars":
        cs = list(s)
        for _ in range(rng.randint(1, 4)):
            if cs: cs[rng.randrange(len(cs))] = rng.choice("aeiouxyz.,-!é字")
        return "".join(cs)
    if op == "case": return s.upper() if rng.random() < 0.5 else s.lower()
    if op == "punct": return s.rstrip(".?!。？") + rng.choice(["", " .", "!", "...", " ,"])
    if op == "space": return "  " + s.replace(" ", rng.choice(["  ", "\t", "\u00a0", "\u3000"])) + " \n"
    if op == "shuffle": rng.shuffle(words); return " ".join(words)
    if op == "prefix": return rng.choice(["Translation: ", "<think>let me think</think>\n", "Sure!\n", "<think>unclosed "]) + s
    if op == "nfd": return unicodedata.normalize("NFD", s)
    if op == "empty": return rng.choice(["", "   ", "<think>x</think>", "\n"])
    if op == "other": return rng.choice(REFS)
    return s

def strip_reasoning(text):
    if "</think>" in text: return text.rsplit("</think>", 1)[1].lstrip("\n")
    if "<think>" in text: return ""
    return text

with open(sys.argv[3], "w") as f:
    for _ in range(int(sys.argv[2])):
        ref = rng.choice(REFS)
        hyp = perturb(perturb(ref) if rng.random() < 0.3 else ref)
        generation = strip_reasoning(hyp).strip()
        if generation:
            h, r = unicodedata.normalize("NFC", generation), unicodedata.normalize("NFC", ref)
            chrf, bleu = sacrebleu.sentence_chrf(h, [r]).score, sacrebleu.sentence_bleu(h, [r]).score
        else:
            chrf, bleu = 0.0, 0.0
        f.write(json.dumps({"output_text": hyp, "translation": ref, "generation": generation, "sentence_chrf": chrf, "sentence_bleu": bleu}, ensure_ascii=False) + "\n")
