#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""guest-bench/calib-bench.py: make bench-calib, calibration from CPUID
against the PIT (runner/calib.py; --help says it all)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runner import calib  # noqa: E402

sys.exit(calib.main())
