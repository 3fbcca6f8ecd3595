# Stand-in for camel.toolkits: TerminalToolkit's four tools that terminal-rl/remote/terminal_env.py hands the model,
# with camel's signatures (so a bad argument raises the TypeError camel's would), run as bash in the container's folder
# (standin_container) instead of `docker exec`; FunctionTool answers camel's schemas as recorded in
# tests/fixtures/terminal-rl/camel-terminal-tool-schemas.json. No safe mode, no local backend, no MCP.
import json
import subprocess
import threading
from pathlib import Path

from standin_container import container_folder, run_in_container

_SCHEMAS = Path(__file__).resolve().parents[4] / "fixtures" / "terminal-rl" / "camel-terminal-tool-schemas.json"


class FunctionTool:
    def __init__(self, func):
        self.func = func

    def get_openai_tool_schema(self):
        schemas = {tool["function"]["name"]: tool for tool in json.loads(_SCHEMAS.read_text())}
        if self.func.__name__ not in schemas:
            raise ValueError(f"the stand-in has no recorded camel schema for {self.func.__name__}")
        return schemas[self.func.__name__]


class TerminalToolkit:
    def __init__(self, timeout=20.0, working_directory=None, use_docker_backend=False, docker_container_name=None, session_logs_dir=None, safe_mode=True, allowed_commands=None, clone_current_env=False, install_dependencies=None):
        if not use_docker_backend or not docker_container_name:
            raise ValueError("the stand-in TerminalToolkit runs only in a container (use_docker_backend, docker_container_name)")
        if not container_folder(docker_container_name).is_dir():
            raise RuntimeError(f"Container '{docker_container_name}' not found.")
        self.container = docker_container_name
        self.timeout = timeout
        self.shell_sessions = {}
        self._session_lock = threading.RLock()

    def shell_exec(self, id: str, command: str, block: bool = True, timeout: float = 20.0) -> str:
        if block is False:
            folder = container_folder(self.container)
            process = subprocess.Popen(["bash", "-c", command], cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            with self._session_lock:
                self.shell_sessions[id] = {"process": process, "output": [], "running": True}
            threading.Thread(target=self._read, args=(id,), daemon=True).start()
            return f"Session '{id}' started."
        try:
            output = run_in_container(self.container, command, timeout if timeout is not None else 20.0)
        except TimeoutError:
            return f"Command did not complete within {timeout} seconds."
        return output if output.strip() else "Command executed successfully (no output)."

    def _read(self, id):
        session = self.shell_sessions[id]
        for line in session["process"].stdout:
            with self._session_lock:
                session["output"].append(line)
        session["running"] = False

    def shell_view(self, id: str) -> str:
        with self._session_lock:
            if id not in self.shell_sessions:
                return f"Error: No session found with ID '{id}'."
            session = self.shell_sessions[id]
            output, session["output"] = "".join(session["output"]), []
        return output or ("[No new output]" if session["running"] else "[Process has ended]")

    def shell_write_to_process(self, id: str, command: str) -> str:
        with self._session_lock:
            session = self.shell_sessions.get(id)
            if session is None or not session["running"]:
                return f"Error: No active non-blocking session found with ID '{id}'."
        session["process"].stdin.write(command + "\n")
        session["process"].stdin.flush()
        return "Input sent."

    def shell_write_content_to_file(self, content: str, file_path: str) -> str:
        folder = container_folder(self.container)
        target = folder / file_path.lstrip("/")  # the container's / is its folder
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        return f"Content successfully written to file: {file_path}"

    def cleanup(self):
        with self._session_lock:
            for session in self.shell_sessions.values():
                if session["process"].poll() is None:
                    session["process"].kill()
