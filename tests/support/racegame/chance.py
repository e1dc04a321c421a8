"""A race has no chance: nothing is shuffled, nothing is committed."""
