"""simlib.workloads"""
