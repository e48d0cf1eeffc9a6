"""simlib.papers.selmcast"""
