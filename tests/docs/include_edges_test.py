#!/usr/bin/env python3
"""Checks every quoted #include between pet's folders against the layering table of docs/ARCHITECTURE.md.

Usage: python3 tests/docs/include_edges_test.py REPO_ROOT

The table is the one whose header is `folder | job | may depend on`. A file belongs to the longest
folder of the table that is a prefix of its path (kernels/runtime/x.cpp to kernels/runtime, not
kernels); so does an included path. An edge is allowed when both ends are in the same folder, when
the including folder lists the included one, or when it lists `anything` (tests, bench). Exit 0 when
every edge is allowed, 1 with one line per offending edge, 2 when the table cannot be read.
"""
import os
import re
import sys

SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".cpp.in", ".h.in")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
TABLE_HEADER = ["folder", "job", "may depend on"]
ANY = "anything"
NONE_MARKS = {"", "-", "—", "nothing"}


class TableError(Exception):
    pass


def cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def folder_name(text):
    return text.strip().strip("`").strip().rstrip("/")


def read_layering(architecture_md):
    """Returns {folder: set of folders it may depend on, or None for anything}."""
    with open(architecture_md, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.lstrip().startswith("|") and [c.lower() for c in cells(line)] == TABLE_HEADER), None)
    if start is None:
        raise TableError(f"{architecture_md}: no table with the header | {' | '.join(TABLE_HEADER)} |")
    allowed = {}
    for number, line in enumerate(lines[start + 2:], start + 3):
        if not line.lstrip().startswith("|"):
            break
        row = cells(line)
        if len(row) != 3:
            raise TableError(f"{architecture_md}:{number}: a row needs 3 cells, this one has {len(row)}")
        folder = folder_name(row[0])
        if folder in allowed:
            raise TableError(f"{architecture_md}:{number}: folder {folder} appears twice")
        deps = [folder_name(d) for d in row[2].split(",")]
        if deps == [ANY]:
            allowed[folder] = None
        else:
            allowed[folder] = {d for d in deps if d not in NONE_MARKS}
    if not allowed:
        raise TableError(f"{architecture_md}:{start + 1}: the table has no rows")
    for folder, deps in allowed.items():
        for dep in sorted(deps or ()):
            if dep not in allowed:
                raise TableError(f"{architecture_md}: {folder} may depend on {dep}, which is no folder of the table")
    return allowed


def folder_of(path, folders):
    best = None
    for folder in folders:
        if (path == folder or path.startswith(folder + "/")) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def source_files(root):
    for directory, subdirs, files in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        # Hidden folders and the build folders at the root (build/, build-fuzz/, ...) hold no sources of ours.
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and not (rel_dir == "." and d.startswith("build")))
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/")


def included_folder(root, including, target, folders):
    folder = folder_of(target, folders)
    if folder is not None:
        return folder, target
    # A path relative to the including file's folder, when it names one of ours.
    relative = os.path.normpath(os.path.join(os.path.dirname(including), target)).replace(os.sep, "/")
    if os.path.isfile(os.path.join(root, relative)):
        return folder_of(relative, folders), relative
    return None, target  # not a header of pet's (a third-party header included with quotes)


def main(argv):
    if len(argv) != 2:
        print("usage: include_edges_test.py REPO_ROOT", file=sys.stderr)
        return 2
    root = argv[1]
    architecture_md = os.path.join(root, "docs", "ARCHITECTURE.md")
    try:
        allowed = read_layering(architecture_md)
    except (OSError, TableError) as error:
        print(f"include_edges_test: {error}", file=sys.stderr)
        return 2
    folders = list(allowed)
    problems, edges, files = [], 0, 0
    for path in source_files(root):
        source = folder_of(path, folders)
        if source is None:
            problems.append(f"{path}: in no folder of docs/ARCHITECTURE.md's table (add its folder to the table)")
            continue
        files += 1
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target, shown = included_folder(root, path, match.group(1), folders)
                if target is None or target == source:
                    continue
                edges += 1
                deps = allowed[source]
                if deps is not None and target not in deps:
                    problems.append(f"{path}:{number} includes {shown} (folder {source} may not depend on folder "
                                    f"{target} per docs/ARCHITECTURE.md)")
    if problems:
        print(f"include_edges_test: {len(problems)} problem(s) in {files} files:")
        for problem in problems:
            print("  " + problem)
        return 1
    print(f"include_edges_test: {edges} include edges between folders in {files} files, all allowed by "
          f"docs/ARCHITECTURE.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
