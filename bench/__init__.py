"""Benchmarks: reports, not tests. Run with ``make bench``."""
