"""`python -m mu2py` runs the command line."""

import sys

from mu2py.cli.main import main

sys.exit(main())
