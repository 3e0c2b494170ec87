"""`spec-gen upgrade` changes only the lines the upgrade changes: indentation (lists at
different offsets in one file), trailing spaces and flow collections written over several
lines stay as written everywhere else."""

from __future__ import annotations

import difflib
from pathlib import Path

from spec_gen.document.load import read_yaml
from spec_helpers import run_in, write

MIXED = """\
openapi: 3.0.3   
info: 
  title: Mixed
  version: '1'
tags:
- name: pets    
paths:
  /pets:
    get:
      parameters:
        - name: limit
          in: query
          schema:
            type: integer
            nullable: true
            example: 3
      responses:
        '200':
          description: ok
          content:
            application/json:
              example:
                {
                  "total": 2,
                  "names": ["a", "b"]
                }
              schema:
                type: array
                items: {type: string,
                        format: binary}
"""


def test_upgrade_keeps_the_layout_of_every_line_it_does_not_change(tmp_path: Path) -> None:
    spec = write(tmp_path / "openapi.yaml", MIXED)
    code, out = run_in(tmp_path, "upgrade", "--spec", str(spec), "-o", "v31.yaml")
    assert code == 0, out
    text = (tmp_path / "v31.yaml").read_text()
    removed = [
        line
        for line in difflib.ndiff(MIXED.splitlines(), text.splitlines())
        if line.startswith("- ")
    ]
    # the version, the nullable type, the example, the binary format: nothing else
    assert removed == [
        "- openapi: 3.0.3   ",
        "-             type: integer",
        "-             nullable: true",
        "-             example: 3",
        "-                 items: {type: string,",
        "-                         format: binary}",
    ], text
    assert "\ntags:\n- name: pets    \n" in text
    assert "info: \n" in text and '                  "names": ["a", "b"]\n' in text
    document = read_yaml(tmp_path / "v31.yaml")
    schema = document["paths"]["/pets"]["get"]["parameters"][0]["schema"]
    assert schema == {"type": ["integer", "null"], "examples": [3]}
    assert document["openapi"] == "3.1.0"
