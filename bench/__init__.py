"""Benchmarks and simulation scripts (not tests)."""
