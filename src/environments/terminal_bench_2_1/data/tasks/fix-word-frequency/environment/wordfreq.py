import sys
from collections import Counter


def top_words(text, n=3):
    counts = Counter(text.split())
    return sorted(counts.items(), key=lambda kv: kv[1])[:n]


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        for word, count in top_words(f.read()):
            print(word, count)
