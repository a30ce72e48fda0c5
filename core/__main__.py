"""``python -m core`` runs the CLI."""

import sys

from core.cli import main

sys.exit(main())
