"""DallETool and VisionTool on the real openai SDK, against the project's OpenAI-compatible test server."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from crewgraph.testing import OpenAICompatServer, ServerReply
from crewgraph.toolkit import DallETool, VisionTool
from crewgraph.tools import ToolFailure

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def test_dalle_generates_and_reports_url_and_revised_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with OpenAICompatServer() as server:
        tool = DallETool(base_url=server.base_url, size="512x512", quality="hd")
        answer = json.loads(tool.run(image_description="a lighthouse at dawn"))
        assert answer["image_description"] == "A picture of a lighthouse at dawn"
        assert answer["image_url"].endswith("/images/0.png")
        assert server.requests[-1] == {"model": "dall-e-3", "prompt": "a lighthouse at dawn", "size": "512x512",
                                       "quality": "hd", "n": 1}


def test_vision_sends_a_local_image_inline(tmp_path: Path) -> None:
    image = tmp_path / "dot.png"
    image.write_bytes(PNG)
    with OpenAICompatServer(["A single red pixel."]) as server:
        tool = VisionTool(base_url=server.base_url, api_key="k")
        assert tool.run(image_path_url=str(image)) == "A single red pixel."
        body = server.chat_requests[-1]
        assert body["model"] == "gpt-4o-mini" and body["max_tokens"] == 300
        parts = body["messages"][0]["content"]
        assert parts[0] == {"type": "text", "text": "What's in this image?"}
        assert parts[1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()


def test_vision_passes_web_urls_and_rejects_non_images(tmp_path: Path) -> None:
    with OpenAICompatServer(["A cat."]) as server:
        tool = VisionTool(base_url=server.base_url, api_key="k")
        assert tool.run(image_path_url="https://img.example/cat.jpg") == "A cat."
        assert server.chat_requests[-1]["messages"][0]["content"][1]["image_url"]["url"] == "https://img.example/cat.jpg"
    (tmp_path / "notes.txt").write_text("x")
    bad = VisionTool(api_key="k").run(image_path_url=str(tmp_path / "notes.txt"))
    assert isinstance(bad, ToolFailure) and bad.code == "invalid_image"
    missing = VisionTool(api_key="k").run(image_path_url=str(tmp_path / "gone.png"))
    assert isinstance(missing, ToolFailure) and missing.code == "file_not_found"


def test_vision_asks_the_query_at_the_complexity_level() -> None:
    with OpenAICompatServer(["Three cats."]) as server:
        tool = VisionTool(base_url=server.base_url, api_key="k")
        assert tool.run(image_path_url="https://img.example/c.jpg", query="How many cats?", complexity_level="hard") == "Three cats."
        parts = server.chat_requests[-1]["messages"][0]["content"]
        assert parts[0] == {"type": "text", "text": "How many cats?"}
        assert parts[1]["image_url"] == {"url": "https://img.example/c.jpg", "detail": "high"}
    none = VisionTool(api_key="k").run()
    assert isinstance(none, ToolFailure) and none.code == "missing_image"
    with pytest.raises(ValueError, match="complexity_level"):
        VisionTool(api_key="k").run(image_path_url="x.png", complexity_level="extreme")


def test_api_errors_become_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAICompatServer([ServerReply.error(400, "content policy violation")]) as server:
        result = VisionTool(base_url=server.base_url, api_key="k").run(image_path_url="https://img.example/a.png")
        assert isinstance(result, ToolFailure) and "content policy violation" in result.message and not result.retryable


def test_keys_are_checked_before_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert DallETool().config_problems() == ["DallETool needs a OpenAI API key: set OPENAI_API_KEY or pass api_key=..."]
    with pytest.raises(ValueError, match=r"VisionTool\(llm=\.\.\.\) is not supported"):
        VisionTool(llm="gpt-4o")


def test_ocr_asks_a_vision_model_for_the_text(tmp_path: Path) -> None:
    from crewgraph.toolkit import OCRTool

    image = tmp_path / "scan.png"
    image.write_bytes(PNG)
    with OpenAICompatServer(["INVOICE 42"]) as server:
        assert OCRTool(base_url=server.base_url, api_key="k").run(image_path_url=str(image)) == "INVOICE 42"
        body = server.chat_requests[-1]
        assert body["model"] == "gpt-4o" and body["temperature"] == 0.7
        assert body["messages"][0]["role"] == "system" and "OCR" in body["messages"][0]["content"]
        assert body["messages"][1]["content"][0]["image_url"]["url"].startswith("data:image/png;base64,")


def test_ocr_with_a_crewgraph_llm(tmp_path: Path) -> None:
    from crewgraph.testing import FakeLLM
    from crewgraph.toolkit import OCRTool

    llm = FakeLLM(["HELLO"])
    tool = OCRTool(llm=llm)
    assert tool.config_problems() == []
    assert tool.run(image_path_url="https://img.example/scan.png") == "HELLO"
    sent = llm.calls[-1].messages
    assert sent[1]["content"][0]["image_url"]["url"] == "https://img.example/scan.png"
