# Stand-in for terminal_bench.handlers.trial_handler: a task is a folder with task.yaml (instruction, parser_name,
# max_test_timeout_sec), run-tests.sh, tests/ and docker-compose.yaml; a trial gets its output folders under
# output_path/<task id>/<trial name>/, and its container is named after the trial, as terminal-bench names them.
from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass
class Task:
    instruction: str
    parser_name: str = "pytest"
    max_test_timeout_sec: float = 60.0

    @classmethod
    def from_yaml(cls, path: Path) -> "Task":
        data = yaml.safe_load(path.read_text())  # a task missing from the dataset raises FileNotFoundError here
        return cls(instruction=str(data["instruction"]), parser_name=str(data.get("parser_name", "pytest")), max_test_timeout_sec=float(data.get("max_test_timeout_sec", 60.0)))


class TaskPaths:
    def __init__(self, input_path: Path):
        self.input_path = input_path
        self.task_config_path = input_path / "task.yaml"
        self.test_dir = input_path / "tests"
        self.run_tests_path = input_path / "run-tests.sh"
        self.docker_compose_path = input_path / "docker-compose.yaml"


class TrialPaths:
    def __init__(self, output_path: Path, task_id: str, trial_name: str):
        self.task_output_path = output_path / task_id / trial_name
        self.sessions_path = self.task_output_path / "sessions"
        self.agent_logging_dir = self.task_output_path / "agent-logs"

    def mkdir(self) -> None:
        self.sessions_path.mkdir(parents=True, exist_ok=True)
        self.agent_logging_dir.mkdir(parents=True, exist_ok=True)


class TrialHandler:
    def __init__(self, trial_name: str, input_path: Path, output_path: Path | None = None):
        self.trial_name = trial_name
        self.task_paths = TaskPaths(Path(input_path))
        self.task = Task.from_yaml(self.task_paths.task_config_path)
        if output_path is not None:
            self.trial_paths = TrialPaths(Path(output_path), self.task_id, trial_name)
            self.trial_paths.mkdir()

    @property
    def task_id(self) -> str:
        return self.task_paths.input_path.name

    @property
    def docker_image_name_prefix(self) -> str:
        return f"tb__{self.task_id}".replace(".", "-")

    @property
    def client_container_name(self) -> str:
        return self.trial_name.replace(".", "-")

    @property
    def client_image_name(self) -> str:
        return f"{self.docker_image_name_prefix}__client"
