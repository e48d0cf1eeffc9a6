"""simlib.papers.partial_reduce.experiments"""
