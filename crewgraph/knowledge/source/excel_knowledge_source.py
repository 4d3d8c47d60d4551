"""``ExcelKnowledgeSource``: ``.xlsx`` workbooks, every sheet, rows as in the CSV source.

Needs openpyxl: ``pip install 'crewgraph[knowledge]'`` (a clear error says so).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from crewgraph.errors import ConfigurationError
from crewgraph.knowledge.source.base_file_knowledge_source import BaseFileKnowledgeSource
from crewgraph.knowledge.source.csv_knowledge_source import rows_as_text

__all__ = ["ExcelKnowledgeSource"]


class ExcelKnowledgeSource(BaseFileKnowledgeSource):
    """``ExcelKnowledgeSource(file_paths=["prices.xlsx"])``: one section per sheet."""

    source_type: Literal["excel"] = "excel"

    def read_file(self, path: Path) -> str:
        try:
            from openpyxl import load_workbook
        except ImportError as exc:
            raise ConfigurationError(
                "ExcelKnowledgeSource reads workbooks with openpyxl: pip install 'crewgraph[knowledge]'"
            ) from exc
        workbook = load_workbook(path, read_only=True, data_only=True)
        try:
            sections = []
            for sheet in workbook.worksheets:
                rows = [
                    ["" if cell is None else str(cell) for cell in row]
                    for row in sheet.iter_rows(values_only=True)
                    if any(cell is not None for cell in row)
                ]
                if rows:
                    sections.append(f"Sheet: {sheet.title}\n{rows_as_text(rows)}")
            return "\n\n".join(sections)
        finally:
            workbook.close()
