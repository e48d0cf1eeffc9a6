"""simlib.core"""
