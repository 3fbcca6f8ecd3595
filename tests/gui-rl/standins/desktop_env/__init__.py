# Stand-in for OSWorld's desktop_env (the reference's gui-rl/desktop_env drives virtual machines): a text desktop,
# for running the reference's gui-rl/env_pool_server.py in tests.
