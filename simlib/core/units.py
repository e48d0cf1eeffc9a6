"""Unit constants. simlib works in seconds, bits and bits/s throughout.

Decimal prefixes (as in networking): 1 MB = 10**6 bytes = 8 * 10**6 bits,
1 Gbps = 10**9 bit/s, 1 Mbps = 10**6 bit/s.
"""
BIT = 1.0
BYTE = 8.0
KB = 8e3
MB = 8e6
GB = 8e9
bps = 1.0
Kbps = 1e3
Mbps = 1e6
Gbps = 1e9
ms = 1e-3
us = 1e-6
