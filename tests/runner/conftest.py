# SPDX-License-Identifier: MIT
"""The host runner's tests (guest-bench/runner): its package on sys.path,
first, so that `from runner import records` finds it."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), 'guest-bench'))
