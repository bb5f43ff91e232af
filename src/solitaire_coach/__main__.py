"""``python -m solitaire_coach``: the same as the ``solitaire-coach`` command."""

import sys

from .app.cli import main

if __name__ == "__main__":
    sys.exit(main())
