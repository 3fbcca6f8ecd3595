# Stand-in for terminal_bench.terminal.docker_compose_manager: where the tests go in the container, and a build that
# has nothing to build (a stand-in container is a folder, made when its terminal starts).
from pathlib import Path


class DockerComposeManager:
    CONTAINER_TEST_DIR = Path("/tests")

    def __init__(self, **options):
        self.options = options
        self.env = {}

    def build(self, timeout: float | None = None) -> None:
        return None
