import logging

# The client logs long waits as WARNINGs, which Python prints when nothing handles them; the tests that
# are about those lines capture them (assertLogs), and the rest keep the run's output to its results.
logging.getLogger("mdp_client").addHandler(logging.NullHandler())
