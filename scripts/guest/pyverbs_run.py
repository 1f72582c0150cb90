#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run rdma-core's pyverbs tests the way their run_tests.py does, but write
one "name<TAB>verdict<TAB>reason" line per test to a file. rdma-core 56's
pyverbs can crash in the cyclic garbage collector, freeing objects left by
a test that was skipped half-way (a CQ whose QP could not be made) after
their context closed: that is not a verdict on the device, so the cyclic
collector is off and the process leaves with os._exit() once the results
are written.
Usage: pyverbs_run.py TESTS_DIR RESULTS_FILE --dev DEV [-v] MODULE..."""
import gc
import os
import sys
import traceback
import unittest
from importlib.machinery import SourceFileLoader

gc.disable()
tests_dir, results = sys.argv[1], sys.argv[2]
sys.path.insert(0, tests_dir)
sys.argv = [os.path.join(tests_dir, 'run_tests.py')] + sys.argv[3:]
from args_parser import parser  # noqa: E402

tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
parser.parse_args()


def name_of(test):
    return getattr(test, '_testMethodName', None) or str(test).split()[0]


def last_line(err):
    lines = ''.join(traceback.format_exception(*err)).strip().splitlines()
    return lines[-1] if lines else ''


class Result(unittest.TextTestResult):
    def record(self, test, verdict, why=''):
        with open(results, 'a') as f:
            f.write('%s\t%s\t%s\n' % (name_of(test), verdict,
                                      why.replace('\t', ' ').replace('\n', ' ')))

    def addSuccess(self, test):
        super().addSuccess(test)
        self.record(test, 'ok')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.record(test, 'FAIL', last_line(err))

    def addError(self, test, err):
        super().addError(test, err)
        self.record(test, 'ERROR', last_line(err))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.record(test, 'skip', reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.record(test, 'ok', 'expected failure')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.record(test, 'FAIL', 'unexpected success')


prog = unittest.main(module=tests, exit=False,
                     testRunner=unittest.TextTestRunner(resultclass=Result, verbosity=2))
sys.stdout.flush()
sys.stderr.flush()
os._exit(0 if prog.result.wasSuccessful() else 1)
