"""The application file of `spark-submit` (with `--py-files paimon_parity_spark.zip`): the same driver as
`scripts/spark-replay`, e.g.

    spark-submit --master yarn --deploy-mode cluster --archives paimon-parity-bundle.tar.gz#pp \
      --py-files paimon_parity_spark.zip submit.py replay s3://bucket/warehouse \
      --shipped --binary pp/bin/paimon-parity --java-target pp/java --json report.json
"""

import sys

from paimon_parity_spark.driver import main

sys.exit(main())
