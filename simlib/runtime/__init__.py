"""simlib.runtime"""
