"""``request_human_input`` of the hook contexts: a person's answer from inside a hook.

CrewAI's hooks ask on the terminal (an approval gate before a model or tool call, a debug
stop). Here the crew's ``input_provider`` answers when it has one, as it does for
``Task(human_input=True)``: a callable ``fn(prompt)``, or an object with ``ask(prompt)``;
otherwise the terminal. A hook runs in the middle of a call and cannot pause the run, so a
provider that pauses (``"persisted"``) is refused with the way out. The end of input (stdin
closed: no person there) answers ``""``, as pressing Enter would, and says so in the log.
"""

from __future__ import annotations

import logging
from typing import Any

from crewgraph.errors import ConfigurationError

__all__ = ["DEFAULT_MESSAGE", "ask_person"]

DEFAULT_MESSAGE = "Press Enter to continue, or provide feedback:"

_log = logging.getLogger("crewgraph.hooks")


def ask_person(provider: Any, prompt: str, default_message: str = DEFAULT_MESSAGE) -> str:
    """The person's answer to ``prompt`` (stripped; ``""``: Enter)."""
    if provider == "persisted" or getattr(provider, "pauses", False) is True:
        raise ConfigurationError(
            "request_human_input was called in a hook, but the crew's input_provider pauses the run "
            "(\"persisted\"), and a hook cannot pause in the middle of a call; give the crew a callable "
            "input_provider (fn(prompt) -> str) or none (the terminal), or pause with Task(human_input=True)")
    question = f"{prompt}\n{default_message}" if default_message else prompt
    try:
        if provider is None or provider == "console":
            print(f"\n{prompt}", flush=True)
            if default_message:
                print(default_message, flush=True)
            reply: Any = input()
        elif callable(ask := getattr(provider, "ask", None)):
            reply = ask(question)
        elif callable(provider):
            reply = provider(question)
        else:
            raise ConfigurationError(
                f"the crew's input_provider {provider!r} cannot answer request_human_input: give a callable "
                "fn(prompt) -> str, an object with ask(prompt), or none (the terminal)")
    except EOFError:
        _log.warning("request_human_input(%r): no input (stdin is closed); answered '' as Enter would", prompt)
        return ""
    return str(reply or "").strip()
