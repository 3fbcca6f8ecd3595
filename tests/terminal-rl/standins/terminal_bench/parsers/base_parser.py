# Stand-in for terminal_bench.parsers.base_parser: a test's status.
from enum import Enum


class UnitTestStatus(Enum):
    PASSED = "passed"
    FAILED = "failed"
