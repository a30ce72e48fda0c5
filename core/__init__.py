"""Evidence Console engine: planner -> executor -> gatekeeper -> verifier -> composer.

Never imports streamlit: the console in ``app.py`` and ``pages/`` and the CLI in ``core.cli``
both consume this package's event stream.
"""

import logging

__version__ = "0.1.0"

# A library stays quiet unless its application asks (core/log.py): without this, Python would
# print our warnings to stderr through its last-resort handler.
logging.getLogger(__name__).addHandler(logging.NullHandler())
