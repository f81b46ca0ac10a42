"""Test helpers, imported one way: `from tests.support.paths import ROOT`, `from tests.support.browser import ...`
(the repository root is on pytest's `pythonpath`). Fixtures stay in tests/conftest.py."""
