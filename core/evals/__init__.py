"""The eval harness: YAML case files (``cases``), expectation checks (``matching``), the
runner that stores every run (``runner``), run metrics (``metrics``), the text table
(``report``) and JUnit XML (``junit``).

Import from the modules themselves: this package stays empty so that reading case files (or
``superbiz eval --help``) does not load the pipeline and the audit store the runner needs.
"""

# Cases run one at a time by default. A case's work is pure Python, which threads only take
# turns at (the GIL): in memory, 2 or 4 threads finished an eval no sooner. Stored, threads
# overlap the waits on the audit store's disk, a gain that came and went with the machine's
# load (2 threads: 1.04x to 1.6x over three runs), while every case's measured latency grew
# 1.4x to 2x, which the run's latency metrics then report. bench/evals.py --sweep 1,2,4.
DEFAULT_WORKERS = 1
