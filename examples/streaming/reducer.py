#!/usr/bin/env python3
"""The word count reducer of Hadoop Streaming tutorials: its input is sorted
by word, so the counts of a word arrive together and are summed."""
import sys

current, total = None, 0
for line in sys.stdin:
    word, _, count = line.rstrip("\n").partition("\t")
    if word != current:
        if current is not None:
            print(f"{current}\t{total}")
        current, total = word, 0
    total += int(count)
if current is not None:
    print(f"{current}\t{total}")
