"""simlib.papers.selective_reduce.experiments"""
