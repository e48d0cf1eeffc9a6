"""simlib: a flow-level discrete-event simulator for partial model synchronization.

Units everywhere: time in seconds (s), data volume in bits, rates and
capacities in bits per second (bit/s).  Papers quote MB and Gbps; the helpers
``units.MB`` (= 8e6 bits, decimal megabytes) and ``units.Gbps`` (= 1e9 bit/s)
convert at the boundary.
"""
__version__ = "0.1.0"
