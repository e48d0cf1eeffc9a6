"""simlib.papers.selective_reduce"""
