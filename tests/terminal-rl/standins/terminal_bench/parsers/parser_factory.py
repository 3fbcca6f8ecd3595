# Stand-in for terminal_bench.parsers.parser_factory: the pytest parser's reading of a run's short summary, lines
# "PASSED <test>" and "FAILED <test>"; no such line is a parse error, as terminal-bench's parser raises one.
import re

from terminal_bench.parsers.base_parser import UnitTestStatus


class PytestSummaryParser:
    def parse(self, content: str) -> dict:
        results = {match.group(2): UnitTestStatus[match.group(1)] for match in re.finditer(r"^(PASSED|FAILED) (\S+)", content, re.M)}
        if not results:
            raise ValueError("No short test summary info found in the provided content.")
        return results


class ParserFactory:
    @staticmethod
    def get_parser(parser_name, **kwargs):
        if str(getattr(parser_name, "value", parser_name)) != "pytest":
            raise ValueError(f"the stand-in has only the pytest parser, not {parser_name}")
        return PytestSummaryParser()
