"""simlib.pipeline"""
