"""The SWE environment's file operations, run inside the episode's sandbox as its user (never as the server's):
write a task's files, read one, replace text in one, and the unified diff of the working folder against the task's
original files. Paths are relative to the working folder; an absolute path or one with `..` is refused.

Exit codes: 0 done, 2 a refusal the model should read (the message is on stdout), anything else a crash.
Usage: python3 -c "$(cat file_tools.py)" write FILES_JSON | read PATH | edit PATH OLD NEW | diff ORIGINAL_JSON
"""

import difflib
import json
import os
import stat
import sys

MAX_READ_CHARS = 12000


def refuse(message):
    print(f"error: {message}")
    sys.exit(2)


def checked(path):
    if path == "" or os.path.isabs(path) or ".." in path.replace("\\", "/").split("/"):
        refuse(f"{path!r} is not a path inside the repository (relative, without ..)")
    return os.path.normpath(path)


def write_files(files):
    for path, content in files.items():
        path = checked(path)
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(content)


def read_file(path):
    path = checked(path)
    if not os.path.isfile(path):
        refuse(f"no file {path}")
    with open(path, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    sys.stdout.write(text if len(text) <= MAX_READ_CHARS else text[:MAX_READ_CHARS] + f"\n[cut at {MAX_READ_CHARS} characters]\n")


def edit_file(path, old, new):
    path = checked(path)
    if old == "":
        refuse("old_text is empty")
    if not os.path.isfile(path):
        refuse(f"no file {path}")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    count = text.count(old)
    if count != 1:
        refuse(f"old_text occurs {count} times in {path}; it must occur exactly once (give more of the surrounding text)")
    at = text.index(old)
    line = text.count("\n", 0, at) + 1
    # replace, not rewrite in place: the file may belong to whoever wrote it first
    temporary = f"{path}.edit-{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new, 1))
    os.replace(temporary, path)
    print(f"edited {path}: replaced {len(old.splitlines()) or 1} line(s) at line {line} with {len(new.splitlines())} line(s)")


def current_files():
    """Every file of the working folder (symlinks as `-> target`, never followed); __pycache__ left out."""
    found = {}
    for folder, subfolders, files in os.walk(".", followlinks=False):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            path = os.path.normpath(os.path.join(folder, name))
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                found[path] = f"-> {os.readlink(path)}\n"
            elif stat.S_ISREG(mode):
                with open(path, encoding="utf-8", errors="replace") as handle:
                    found[path] = handle.read()
    return found


def lines_of(text):
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def diff(original):
    current = current_files()
    for path in sorted(set(original) | set(current)):
        before, after = original.get(path), current.get(path)
        if before == after:
            continue
        sys.stdout.writelines(
            difflib.unified_diff(
                lines_of(before or ""),
                lines_of(after or ""),
                "/dev/null" if before is None else f"a/{path}",
                "/dev/null" if after is None else f"b/{path}",
            )
        )


def main(argv):
    command = argv[0] if argv else ""
    if command == "write" and len(argv) == 2:
        write_files(json.loads(argv[1]))
    elif command == "read" and len(argv) == 2:
        read_file(argv[1])
    elif command == "edit" and len(argv) == 4:
        edit_file(argv[1], argv[2], argv[3])
    elif command == "diff" and len(argv) == 2:
        diff(json.loads(argv[1]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main(sys.argv[1:])
