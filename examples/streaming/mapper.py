#!/usr/bin/env python3
"""The word count mapper of Hadoop Streaming tutorials: one "word<TAB>1" line per word."""
import sys

for line in sys.stdin:
    for word in line.split():
        print(f"{word}\t1")
