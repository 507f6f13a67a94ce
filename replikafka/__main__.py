import sys

from replikafka.cli import main

sys.exit(main())
