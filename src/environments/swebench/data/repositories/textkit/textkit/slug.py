def slugify(title):
    """A URL slug for a title: its words in lower case, joined by hyphens."""
    return title.lower().replace(" ", "-")
