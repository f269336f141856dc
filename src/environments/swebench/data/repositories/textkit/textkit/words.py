def word_count(text):
    """The number of words in text: its runs of non-whitespace characters."""
    return len(text.split(" "))
