#!/usr/bin/env python3
"""(being written)"""
import sys
print("SKIP: test_replay is being written")
sys.exit(77)
