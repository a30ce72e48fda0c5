"""``python -m core`` runs the CLI; ``console`` is the ``superbiz`` console script."""

import gc
import sys


def console() -> int:
    """The CLI, its modules imported with the garbage collector off and then frozen: importing
    them makes ~200k objects that live as long as the process, and collecting while they are
    made walks them again and again for no garbage (~1% of a cold ``ask``). Frozen, later
    collections skip them."""
    gc.disable()
    try:
        from core.cli import main
    finally:
        gc.freeze()
        gc.enable()
    return main()


if __name__ == "__main__":
    sys.exit(console())
