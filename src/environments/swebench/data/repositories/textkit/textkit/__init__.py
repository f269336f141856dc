"""Small text helpers."""

from textkit.slug import slugify
from textkit.words import word_count

__all__ = ["slugify", "word_count"]
