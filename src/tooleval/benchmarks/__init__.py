"""Benchmark graders, one folder per benchmark."""
