"""Support modules for the tests: builders, fakes and servers (no tests here)."""
