# Stand-in for terminal_bench.terminal.terminal: a container is a folder named after it (standin_container); start
# makes it and runs the task's setup.sh there (ours, in place of the task's Dockerfile), stop removes it,
# copy_to_container copies into it, and a session runs the keys it is sent as one bash command, its pane the output.
import shutil
from pathlib import Path

from standin_container import container_folder, run_in_container
from terminal_bench.terminal.docker_compose_manager import DockerComposeManager


class TerminalSession:
    def __init__(self, container: str):
        self.container = container
        self.pane = ""

    def send_keys(self, keys, block=False, max_timeout_sec=180.0):
        command = " ".join(key for key in (keys if isinstance(keys, list) else [keys]) if key != "Enter")
        test_dir = str(DockerComposeManager.CONTAINER_TEST_DIR)
        command = command.replace(f"{test_dir}/", f"{container_folder(self.container) / test_dir.lstrip('/')}/")
        self.pane += run_in_container(self.container, command, max_timeout_sec)

    def capture_pane(self, capture_entire=False) -> str:
        return self.pane


class Terminal:
    def __init__(self, client_container_name: str, client_image_name: str, docker_compose_path: Path, **options):
        self.container = client_container_name
        self.task_folder = Path(docker_compose_path).parent

    def start(self, timeout: float | None = None) -> None:
        folder = container_folder(self.container)
        folder.mkdir(parents=True, exist_ok=True)
        setup = self.task_folder / "setup.sh"
        if setup.exists():
            run_in_container(self.container, f"bash {setup}", timeout or 60.0)

    def stop(self, timeout: float | None = None) -> None:
        shutil.rmtree(container_folder(self.container), ignore_errors=True)

    def copy_to_container(self, paths, container_dir=None, container_filename=None) -> None:
        target = container_folder(self.container) / str(container_dir or "/").lstrip("/")
        target.mkdir(parents=True, exist_ok=True)
        for path in paths:
            path = Path(path)
            if path.is_dir():
                shutil.copytree(path, target / path.name if path.name != target.name else target, dirs_exist_ok=True)
            else:
                shutil.copy(path, target / (container_filename or path.name))

    def create_session(self, session_name: str, is_active_stream: bool = False, as_configured_user: bool = True) -> TerminalSession:
        return TerminalSession(self.container)
