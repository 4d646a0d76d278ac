"""The harness's pieces: statistics, variants, measurement, FLOP counts, tables and charts (bench/harness.py drives them)."""
