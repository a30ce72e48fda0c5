"""Evidence Console engine: planner -> executor -> gatekeeper -> verifier -> composer.

Never imports streamlit: the console in ``app.py`` and ``pages/`` and the CLI in ``core.cli``
both consume this package's event stream.
"""

__version__ = "0.1.0"
