"""simlib.papers"""
