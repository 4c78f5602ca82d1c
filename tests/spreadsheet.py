"""LibreOffice, headless, as the spreadsheet program that opens attn's .xlsx files: it recomputes
every formula (XlsxWriter stores no results) and saves the values, which openpyxl reads back."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

# LibreOffice recalculates an .xlsx on load only as its setting "Recalculation on file load,
# Excel 2007 and newer" says (Tools > Options > Calc > Formula); 0 is "always". A fresh profile
# with that setting, so that no cached value (there are none) and no user setting decides.
PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
 xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode"
 oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def soffice() -> str | None:
    return shutil.which("soffice") or shutil.which("libreoffice")


def recalculated(files: Sequence[Path], out: Path) -> list[Path]:
    """Each file opened in LibreOffice, recalculated and saved again as .xlsx into `out`."""
    program = soffice()
    assert program is not None
    with tempfile.TemporaryDirectory() as profile:
        user = Path(profile) / "user"
        user.mkdir()
        (user / "registrymodifications.xcu").write_text(PROFILE, encoding="utf-8")
        subprocess.run([program, f"-env:UserInstallation={Path(profile).as_uri()}", "--headless",
                        "--norestore", "--convert-to", "xlsx", "--outdir", str(out),
                        *map(str, files)], check=True, capture_output=True, timeout=600)
    results = [out / Path(f).name for f in files]
    missing = [str(r) for r in results if not r.exists()]
    assert not missing, f"LibreOffice wrote no {missing}"
    return results
