"""`python -m bonsai`: the bonsai command line."""

from bonsai.cli import main

raise SystemExit(main())
