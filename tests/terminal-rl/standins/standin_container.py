# The stand-ins' containers: a container is a folder named after it under $STANDIN_CONTAINER_ROOT, and `docker exec`
# is bash run in that folder (stdout and stderr together, as docker exec gives them). Nothing here isolates a command.
import os
import subprocess
from pathlib import Path


def container_folder(name: str) -> Path:
    root = os.environ.get("STANDIN_CONTAINER_ROOT", "").strip()
    if not root:
        raise RuntimeError("STANDIN_CONTAINER_ROOT is not set: the stand-in containers need a folder to live in")
    return Path(root) / name


def run_in_container(name: str, command: str, timeout: float) -> str:
    """bash -c command in the container's folder; TimeoutError when it runs past `timeout` seconds."""
    folder = container_folder(name)
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder), "TEST_DIR": str(folder / "tests")}
    try:
        done = subprocess.run(["bash", "-c", command], cwd=folder, env=environment, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise TimeoutError(f"command did not finish within {timeout} s") from error
    return done.stdout + done.stderr
