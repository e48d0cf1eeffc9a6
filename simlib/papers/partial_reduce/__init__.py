"""simlib.papers.partial_reduce"""
