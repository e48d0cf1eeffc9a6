"""simlib.training"""
