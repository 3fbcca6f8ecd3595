# Stand-in for camel-ai (not in Debian): only camel.toolkits' FunctionTool and TerminalToolkit, as
# terminal-rl/remote/terminal_env.py uses them.
