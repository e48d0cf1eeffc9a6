"""simlib.papers.fmreduce"""
