#!/bin/bash
. "$(dirname "$0")/lib.sh"
skip "not written yet"
