"""Joins the folders of harness runs made in parts (--preset, one model at a time) into one table: their rows, each cell from the one part that measured it."""
from pathlib import Path
from typing import Dict, List, Tuple

from harnesslib.tables import CellKey, cell_key, read_csv


class MergeError(Exception):
    """A folder that is not a harness run, or a cell two parts measured."""


def part_header(folder: Path) -> List[str]:
    """The lines of a part's harness.md before its first section: its date, machine, versions and method."""
    path = folder / "harness.md"
    if not path.is_file():
        return [f"- (no harness.md in {folder})"]
    lines = path.read_text().splitlines()
    end = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
    return [line for line in lines[1:end] if line.strip()]


def merged_rows(folders: List[Path]) -> Tuple[List[dict], List[str]]:
    """(the union of the folders' harness.csv rows, the header of the merged report naming every part).

    A cell measured in two parts is refused: its variants' ratios are only comparable within one run."""
    rows: List[dict] = []
    owner: Dict[CellKey, Path] = {}
    header = [f"# pet harness: {len(folders)} part{'s' if len(folders) != 1 else ''} merged (bench/harness.py --merge); each cell was measured "
              "in one part, in one interleaved run", ""]
    for folder in folders:
        path = folder / "harness.csv"
        if not path.is_file():
            raise MergeError(f"{folder} has no harness.csv: not a harness run's --out folder")
        found = read_csv(path)
        for key in dict.fromkeys(cell_key(r) for r in found):
            if key in owner:
                raise MergeError(f"{key[0]} b{key[1]} {key[2]} t{key[3]} is in both {owner[key]} and {folder}; "
                                 "merge parts that measured different cells")
            owner[key] = folder
        rows += found
        header += [f"Part {folder} ({len(found)} rows):", ""] + part_header(folder) + [""]
    return rows, header
