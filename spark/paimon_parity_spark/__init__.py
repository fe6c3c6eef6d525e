"""paimon-parity on Spark: replay and audit every table of a warehouse as Spark tasks, into one report.

`scripts/spark-replay` and `scripts/spark-audit` run `python -m paimon_parity_spark`; see spark/README.md.
"""
