"""Tests against a real platform, run by test/platform/python-client.int.test.ts (vitest starts the
platform once and passes where it is and what to use through the environment):

  MDP_BASE_URL       the gateway
  MDP_TEST_TOKENS    JSON: {"platform": uncapped token, "routes": fresh uncapped token, "burst": fresh
                     token of a 10-a-minute plan, "quota": fresh token of the free plan}
  MDP_TEST_SYMBOLS   JSON: {"stock", "etf", "filer"} of the default dataset
  MDP_TEST_CALLS     JSON: one valid call of every data route by operation id ({args, path})
  MDP_TEST_REPORT    a file each test writes what it saw to, for the vitest side to compare with the
                     server's own figures

Not for running by hand without those (they fail at once naming what is missing)."""
