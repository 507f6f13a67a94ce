import sys

from pyconnect.cli import main

sys.exit(main())
