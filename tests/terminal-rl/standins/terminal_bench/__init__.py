# Stand-in for terminal-bench (not in Debian): the parts terminal-rl/remote/terminal_env.py and docker_compose_utils.py
# use, over a folder per container (standin_container) instead of Docker.
