"""How many list operations of public OpenAPI documents the generated client pages, and why
not the others (issue 26): a list operation is a GET whose JSON answer is a list or holds one.

    python bench/client_paging_report.py ../shared/corpus ../shared/corpus-large

Each argument is a document or a folder (its *.yaml, *.yml and *.json, and the roots named in
ROOTS below for multi-file trees). Prints one line per document and the totals by reason.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from spec_gen.document.load import bundle
from spec_gen.ir import build_ir
from spec_gen.targets.client.paging import is_list_operation, page_style

ROOTS = (
    "digitalocean/specification/DigitalOcean-public.v2.yaml",
    "lob/lob-api-public.yml",
    "matrix/data/api/client-server/content-repo.yaml",
)


def documents(arg: Path) -> list[Path]:
    if arg.is_file():
        return [arg]
    found = sorted(p for p in arg.iterdir() if p.suffix in (".yaml", ".yml", ".json"))
    return found + [arg / r for r in ROOTS if (arg / r).is_file()]


def main(args: list[str]) -> int:
    paged: Counter[str] = Counter()
    unpaged: Counter[str] = Counter()
    for arg in args:
        for path in documents(Path(arg)):
            api = build_ir(bundle(path).document)
            known = set(api.schemas)
            ok = no = 0
            for op in api.operations:
                if not is_list_operation(api, op):
                    continue
                style, why = page_style(api, op, known)
                if style is None:
                    no += 1
                    unpaged[re.sub(r"`[^`]*`", "a", why)] += 1
                else:
                    ok += 1
                    paged[style["kind"]] += 1
            print(f"{path.name}: {ok} paged, {no} not")
    print(
        f"\npaged: {sum(paged.values())}  " + ", ".join(f"{k} {v}" for k, v in paged.most_common())
    )
    print(f"not paged: {sum(unpaged.values())}")
    for why, count in unpaged.most_common():
        print(f"  {count:5d}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
