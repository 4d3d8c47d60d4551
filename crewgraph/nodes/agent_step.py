"""``agent_step`` node: one agent working one task, as a sequence of pure steps.

Each ``run`` is one model turn. When the model asks for tools the step
returns ``spawn=[ToolCallNode...]`` and its conversation as ``resume``; the
scheduler runs the tool calls (concurrently) and calls ``run`` again with
their outcomes in ``ctx.spawned``. ``max_iter`` bounds the tool loop: when it
is reached the model is asked, without tools, for its final answer.

Models without native tool calling (``supports_function_calling()`` False, or
a server that rejects ``tools``) get the text protocol of
:mod:`crewgraph.nodes._text_tools` instead: the tools are described in the
system prompt, an ``Action:``/``Action Input:`` reply is run as the same
spawned ``ToolCallNode`` and its result comes back as ``Observation: ...``.

Models that take ``tools`` but write the call into their text (``<tool_call>``,
``[TOOL_CALLS]``, bare JSON...; see :mod:`crewgraph.nodes._content_calls`) get
those calls run as tool calls too, with the format noted on each tool node.

The step's parts live in mixins beside it: the first prompt (:mod:`._step_prompt`), the
tool turns (:mod:`._step_tools`), the context window (:mod:`._step_window`) and answers
cut by ``max_tokens`` (:mod:`._step_continue`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from crewgraph._internal import execution_vars
from crewgraph._internal.crew_chat import with_conversation
from crewgraph._internal.interpolate import interpolate
from crewgraph._internal.shared_prompt import retained_messages
from crewgraph.errors import LLMError, MaxIterationsError, NodeTimeoutError
from crewgraph.events.agent_events import AgentExecutionCompletedEvent, AgentExecutionStartedEvent
from crewgraph.events.crew_events import TaskStartedEvent
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.policies import RetryPolicy
from crewgraph.graph.reads import Reads
from crewgraph.hooks.types import HookAgent, HookTask
from crewgraph.llm.types import ToolCall
from crewgraph.nodes import _context_window as window
from crewgraph.nodes import _text_tools as text_tools
from crewgraph.nodes import human_input
from crewgraph.nodes._content_calls import ContentCalls, find_content_calls
from crewgraph.nodes._llm_call import call_llm, resolve_llm
from crewgraph.nodes._prompts import EMPTY_ANSWER_MESSAGE, MAX_ITER_MESSAGE, NO_TOOLS_MESSAGE
from crewgraph.nodes._step_continue import ContinuedAnswers, was_cut
from crewgraph.nodes._step_prompt import StepPrompts
from crewgraph.nodes._step_tools import ToolTurns, grounding
from crewgraph.nodes._step_window import ContextWindowSteps
from crewgraph.nodes._stream import chunk_forwarder
from crewgraph.outputs import TaskOutput, UsageMetrics

__all__ = ["AgentStepNode"]

_STEP_RETRY = RetryPolicy(max_attempts=2, initial_delay=0.5)
"""A step's retry when none is given (immutable: one shared default, not one built per step)."""


@dataclass
class _Loop:
    """The conversation so far (the continuation between steps)."""

    messages: list[dict[str, Any]]
    iteration: int = 0
    usage: UsageMetrics = field(default_factory=UsageMetrics)
    tool_failures: list[Any] = field(default_factory=list)
    pending: list[Any] = field(default_factory=list)
    forced_final: bool = False
    text_mode: bool = False
    """Tools go through the text protocol (the model cannot take ``tools``) for the rest of the step."""
    corrected: bool = False
    """The last reply broke the text protocol and was answered with the corrective message."""
    refused_tools: bool = False
    """The model already asked for tools on a turn that offered none and was told to answer."""
    deadline: float | None = None
    """``time.monotonic()`` by which the whole task must be done (``max_execution_time``)."""
    asked_again: bool = False
    """The model already gave an empty final answer and was asked for a real one."""
    compressions: int = 0
    """How often the conversation was shortened to fit the model's context window."""
    window_budget: int | None = None
    """Tokens the conversation may take, learnt from a server's overflow error (window unknown)."""
    call_formats: dict[str, int] = field(default_factory=dict)
    """How many tool calls the model wrote in each text format (``react``, ``hermes``...)."""
    tool_outcomes: dict[str, list[int]] = field(default_factory=dict)
    """Per tool name: [calls, failed calls, empty results], so a tool that failed on every call is
    a warning, and a task none of whose calls gave anything is not grounded."""
    reviews: int = 0
    """How many human reviews (``human_input``) this step has had answered."""
    draft: str = ""
    """The answer waiting for a person's review when the step paused."""
    notes: tuple[str, ...] = ()
    """What the step had to do to get an answer (a refused window, a continued answer): the run
    record's ``notes``. A tuple with a class-level default, so a loop pickled before it existed resumes."""
    continuations: int = 0
    """How often an answer cut by ``max_tokens`` was continued."""
    who: str = ""
    """``Agent 'role' on task 'name'`` with the kickoff's ``{placeholders}`` filled in, for the
    step's error messages (a class-level default: a loop pickled before it existed resumes)."""
    seen_results: dict[str, tuple[str, bool]] | None = None
    """Each successful call's result by its name and arguments, and whether the run's tool cache
    kept it: a later identical call is answered from a kept one (with a reminder) instead of
    being run again, and run again with a reminder otherwise (see ``_call_plan``)."""
    replayed: dict[str, str] | None = None
    """Answers waiting for the calls of the last turn that were not run (call id -> text)."""
    duplicate_calls: int = 0
    """Calls not run because the same reply held the same call (it ran once)."""
    repeated_calls: int = 0
    """Calls not run because an earlier turn made the same call (answered from its result)."""
    training: dict[str, str] | None = None
    """In ``Crew.train``: this step's review (``initial_output``, ``human_feedback``, then
    ``improved_output``), reported in the step's ``info["training"]``."""


@dataclass(frozen=True, kw_only=True)
class AgentStepNode(StepPrompts, ToolTurns, ContextWindowSteps, ContinuedAnswers, Node):
    """An agent's work on one task. Configuration only; no pointer to Agent/Task/Crew."""

    kind: ClassVar[str] = "agent_step"

    task_name: str
    task_id: str | None = None
    """``str(task.id)``: the current task id (``crewgraph.context.get_current_task_id``) while it runs."""
    description: str
    expected_output: str
    agent_role: str
    agent_goal: str = ""
    agent_backstory: str = ""
    system_template: str | None = None
    llm: Any = None
    function_calling_llm: Any = None
    """The agent's ``function_calling_llm``: when set, it makes every turn that offers tools
    (natively or through the text protocol); ``llm`` makes the turns without tools."""
    tools: tuple[Any, ...] = ()
    max_iter: int = 25
    context_nodes: Sequence[str] = ()
    """Nodes whose outputs are this task's context: a tuple, or a ``NodePrefix`` for a
    sequential task's default context (the task has an edge only from the last of them)."""
    memory_node: str | None = None
    knowledge_node: str | None = None
    """The ``knowledge_retrieval`` node whose text (CrewAI's "Additional Information") joins the prompt."""
    plan: str = ""
    plan_node: str | None = None
    """The ``planning`` node whose output (``{task key: plan}``) holds this step's plan."""
    plan_key: str = ""
    tool_policies: tuple[Any, ...] = ()
    max_tool_result_chars: int | None = None
    cache: bool = True
    rpm_keys: tuple[str, ...] = ()
    output_schema: dict[str, Any] | None = None
    feedback: str | None = None
    previous_output: str | None = None
    base_messages: tuple[dict[str, Any], ...] = ()
    """For a redo: the original system and task prompt, reused as they were."""
    human_input: bool = False
    training: bool = False
    """Part of a ``Crew.train`` iteration: one review, one revision (see :mod:`crewgraph.nodes.human_input`)."""
    skills_context: str = ""
    """The agent's activated skills (``Agent(skills=...)``): their instructions, after the task prompt."""
    trained_instructions: str = ""
    """What training taught this agent (CrewAI's "You MUST follow these instructions"), appended
    to its task prompt."""
    step_callbacks: tuple[Callable[..., Any], ...] = ()
    max_tokens: int | None = None
    """The agent's ``max_tokens``: sent with each of its model calls."""
    date_format: str | None = None
    """With the agent's ``inject_date``: today's date in this format goes into the task prompt."""
    reasoning_node: str | None = None
    """The ``reasoning`` node whose output (the agent's plan) goes into the task prompt."""
    respect_context_window: bool = True
    """Summarise or trim the oldest turns when the conversation would overflow the model."""
    input_files: tuple[tuple[str, str], ...] = ()
    """The task's files, ``(name, path or URL)``: text inline, others as content parts."""
    multimodal: bool = False
    """The agent's ``multimodal``: it may be sent images, PDFs and audio (checked at compile time)."""
    retry: RetryPolicy = _STEP_RETRY

    def reads(self) -> Reads:
        """Its memory, knowledge, reasoning and plan nodes (upstream, whole), and its context
        tasks' outputs as text only (``context_entry``); a redo reuses its first prompt
        (``base_messages``) and reads no context."""
        whole = tuple(n for n in (self.memory_node, self.knowledge_node, self.reasoning_node, self.plan_node) if n)
        return Reads(upstream=whole, texts=() if self.base_messages else self.context_nodes)

    async def run(self, ctx: NodeContext) -> NodeResult:
        token = execution_vars.current_task_id.set(self.task_id)
        try:
            return await self._run(ctx)
        finally:
            execution_vars.current_task_id.reset(token)

    async def _run(self, ctx: NodeContext) -> NodeResult:
        if ctx.resume is None and self.human_input:
            paused = human_input.paused_loop(self, ctx)
            if isinstance(paused, _Loop):  # resumed after a pause for review: continue, no model call
                return await self._answered(ctx, paused, paused.draft, paused.usage)
        loop: _Loop = ctx.resume if isinstance(ctx.resume, _Loop) else self._start(ctx, await self._pre_step(ctx))
        self._check_deadline(loop)
        step_usage = UsageMetrics()
        if ctx.resume is not None and loop.pending:
            final = self._absorb_tools(loop, ctx)
            if final is not None:
                return self._finish(ctx, loop, final, step_usage)
        tool_turn = bool(self.tools) and not loop.forced_final
        if tool_turn and loop.iteration >= self.max_iter:
            forced = text_tools.forced_final_message(MAX_ITER_MESSAGE) if loop.text_mode else MAX_ITER_MESSAGE
            loop.messages.append({"role": "user", "content": forced})
            loop.forced_final = True
            tool_turn = False
        own = self.function_calling_llm if tool_turn and self.function_calling_llm is not None else self.llm
        llm = resolve_llm(own, ctx, f"task {interpolate(self.task_name, ctx.inputs)!r}")
        if tool_turn and not loop.text_mode and (
            not llm.supports_function_calling() or text_tools.known_text_only(ctx.state.extras, llm)
        ):
            self._text_mode(loop)
        specs = [t.to_spec() for t in self.tools] if tool_turn and not loop.text_mode else None
        stream = None
        if ctx.state.stream is not None:  # only a streaming run asks the model to stream
            stream = chunk_forwarder(
                ctx, model=llm.model, task_name=interpolate(self.task_name, ctx.inputs),
                agent_role=interpolate(self.agent_role, ctx.inputs),
            )
        if self.respect_context_window:
            step_usage = step_usage.add(await self._fit_window(ctx, llm, loop, specs))
        try:
            reply = await self._call(ctx, llm, loop, specs, stream)
        except Exception as exc:
            if window.is_context_overflow(exc):
                step_usage = step_usage.add(await self._overflowed(ctx, llm, loop, specs, exc))
                try:
                    reply = await self._call(ctx, llm, loop, specs, stream)
                except Exception as again:
                    if window.is_context_overflow(again):
                        raise self._overflow_error(llm, loop, again, "even after shortening it") from again
                    raise
            elif not specs or not text_tools.is_tools_unsupported(exc, llm):
                raise
            else:
                # The server refuses tools: switch this step (and later ones on this model) to text.
                text_tools.remember_text_only(ctx.state.extras, llm)
                self._text_mode(loop)
                specs = None
                reply = await self._call(ctx, llm, loop, None, stream)
        if was_cut(reply):  # stopped at max_tokens: go on from where it stopped
            reply = await self._continue_cut(ctx, llm, loop, reply)
        step_usage = step_usage.add(reply.usage)
        loop.usage = loop.usage.add(reply.usage)
        await self._callbacks(reply, loop)
        if loop.text_mode and tool_turn:
            return await self._text_turn(ctx, loop, reply.content or "", step_usage)
        if loop.text_mode:
            content = reply.content or ""
            if isinstance(text_tools.parse_reply(content), text_tools.TextAction) or (
                self.tools and self._written_in(content) is not None
            ):
                return await self._tools_not_offered(ctx, loop, reply, step_usage)
            answer = text_tools.final_answer_text(reply.content or "")
            loop.messages.append({"role": "assistant", "content": reply.content or ""})
            return await self._answered(ctx, loop, answer, step_usage)
        if reply.tool_calls and specs:
            loop.iteration += 1
            loop.messages.append(reply.assistant_message())
            return await self._spawn(ctx, loop, reply.tool_calls, step_usage)
        if specs and reply.parsed is None:
            written = find_content_calls(reply.content, [spec.name for spec in specs])
            if written is not None:
                return await self._written_calls(ctx, loop, written, reply.content or "", step_usage)
        if reply.tool_calls and not (reply.content or "").strip() and reply.parsed is None:
            return await self._tools_not_offered(ctx, loop, reply, step_usage)
        if self.tools and not tool_turn and reply.parsed is None and self._written_in(reply.content):
            return await self._tools_not_offered(ctx, loop, reply, step_usage)
        answer = reply.content or ""
        if reply.parsed is not None and not answer:
            answer = reply.parsed.model_dump_json()
        loop.messages.append({"role": "assistant", "content": answer})
        return await self._answered(ctx, loop, answer, step_usage)

    async def _call(self, ctx: NodeContext, llm: Any, loop: _Loop, specs: list[Any] | None, stream: Any) -> Any:
        messages = loop.messages if llm.supports_function_calling() else text_tools.text_history(loop.messages)
        options = {"max_tokens": self.max_tokens} if self.max_tokens else None
        return await call_llm(ctx, llm, messages, tools=specs, rpm_keys=self.rpm_keys, stream=stream, options=options,
                              where=self._who(loop),
                              agent=HookAgent(*(interpolate(t, ctx.inputs) for t in
                                                (self.agent_role, self.agent_goal, self.agent_backstory))),
                              task=HookTask(*(interpolate(t, ctx.inputs) for t in
                                              (self.task_name, self.description, self.expected_output))),
                              iterations=loop.iteration)

    async def _answered(self, ctx: NodeContext, loop: _Loop, answer: str, step_usage: UsageMetrics) -> NodeResult:
        """The model gave its final answer (already in ``loop.messages``): ask the human, if the
        task wants that, else finish. An empty answer is asked for again once, then an error
        naming the agent and the task: taking it would report success with nothing in it."""
        if not answer.strip():
            if loop.asked_again:
                raise LLMError(f"{self._who(loop)}: the model gave an empty final answer twice")
            loop.asked_again = True
            loop.iteration += 1
            if loop.messages and loop.messages[-1].get("role") == "assistant" and not loop.messages[-1].get("content"):
                loop.messages.pop()  # some servers reject an empty assistant message
            loop.messages.append({"role": "user", "content": EMPTY_ANSWER_MESSAGE})
            return await self._again(ctx, loop, step_usage)
        if self.human_input:
            review = human_input.training_review if self.training else human_input.review
            feedback = await review(self, ctx, loop, answer)
            if feedback is None:  # a persisted provider: the run pauses until it is answered
                return NodeResult(pending=human_input.pending(self, loop, answer, ctx.inputs), usage=step_usage)
            if feedback:
                loop.messages.append({"role": "user", "content": f"Human feedback on your answer: {feedback}"})
                return await self._again(ctx, loop, step_usage)
        return self._finish(ctx, loop, answer, step_usage)

    async def _tools_not_offered(self, ctx: NodeContext, loop: _Loop, reply: Any, step_usage: UsageMetrics) -> NodeResult:
        """The model asked for tools on a turn that offered none (the agent has no tools, or
        ``max_iter`` was reached) and wrote no answer. Taking its empty text as the final
        answer would be a silent wrong result, so it is told once (an agent without tools gets
        each call answered as an unknown tool, recorded under the failure policy); doing it
        again is a MaxIterationsError naming the agent and the task."""
        names = [c.name for c in reply.tool_calls]
        written = self._written_in(reply.content) if not names else None
        if written is not None:
            names = [c.name for c in written.calls]
        elif not names:
            action = text_tools.parse_reply(reply.content or "")
            names = [action.tool] if isinstance(action, text_tools.TextAction) else []
        if loop.refused_tools:
            why = "although it has no tools" if not self.tools else f"after reaching max_iter={self.max_iter}"
            raise MaxIterationsError(
                f"{self._who(loop)} kept calling tools "
                f"({', '.join(names)}) {why} and gave no final answer"
            )
        loop.refused_tools = True
        loop.iteration += 1
        if not self.tools and reply.tool_calls:
            loop.messages.append(reply.assistant_message())
            children = self._tool_nodes(reply.tool_calls, loop.iteration, loop)
            loop.pending = [(c.id, c.call.id, c.call.name) for c in children]
            return NodeResult(spawn=list(children), resume=loop, usage=step_usage)
        if loop.text_mode:
            loop.messages.append({"role": "assistant", "content": reply.content or ""})
            loop.messages.append({"role": "user", "content": text_tools.forced_final_message(NO_TOOLS_MESSAGE)})
        else:
            if written is not None:
                loop.messages.append({"role": "assistant", "content": reply.content or ""})
            loop.messages.append({"role": "user", "content": NO_TOOLS_MESSAGE})
        result = await self.run(ctx.evolve(resume=loop, spawned={}))
        result.usage = step_usage.add(result.usage)
        return result

    # ------------------------------------------------------------------ calls written as text
    def _written_in(self, content: str | None) -> ContentCalls | None:
        """Tool calls written in ``content`` in one of the open models' formats (or None)."""
        return find_content_calls(content, [t.to_spec().name for t in self.tools])

    async def _written_calls(self, ctx: NodeContext, loop: _Loop, written: ContentCalls, content: str,
                             step_usage: UsageMetrics) -> NodeResult:
        """Run the calls a model wrote in its text as tool calls (one iteration, as native ones).

        On the native protocol the turn is kept as a native assistant message (its prose plus
        ``tool_calls``), so the results go back as ``tool`` messages the server's chat template
        renders in the model's own format; on the text protocol the reply stays text."""
        loop.iteration += 1
        calls = [c.model_copy(update={"id": f"text{loop.iteration}_{k}"}) for k, c in enumerate(written.calls)]
        if loop.text_mode:
            loop.messages.append({"role": "assistant", "content": content})
        else:
            loop.messages.append(
                {"role": "assistant", "content": written.prose or None, "tool_calls": [c.to_openai() for c in calls]}
            )
        loop.call_formats[written.format] = loop.call_formats.get(written.format, 0) + len(calls)
        return await self._spawn(ctx, loop, calls, step_usage, call_format=written.format)

    # ------------------------------------------------------------------ text protocol
    def _text_mode(self, loop: _Loop) -> None:
        """Switch the step to the text protocol: tools described in the system prompt, native
        tool messages so far rewritten as text (a server without tools may reject them)."""
        loop.text_mode = True
        specs = [t.to_spec() for t in self.tools]
        loop.messages = text_tools.with_tools_prompt(text_tools.text_history(loop.messages), specs)

    async def _text_turn(self, ctx: NodeContext, loop: _Loop, content: str, step_usage: UsageMetrics) -> NodeResult:
        """Act on a text-protocol reply: spawn the tool call it names, finish on its final answer,
        or send the corrective message once (an iteration); a second bad reply in a row is
        taken as the final answer, since insisting again rarely helps a model that ignores the format."""
        parsed = text_tools.parse_reply(content)
        if isinstance(parsed, text_tools.TextAction):
            loop.corrected = False
            loop.iteration += 1
            loop.messages.append({"role": "assistant", "content": parsed.text})
            call = ToolCall(id=f"text_{loop.iteration}", name=parsed.tool, arguments=parsed.arguments)
            loop.call_formats["react"] = loop.call_formats.get("react", 0) + 1
            return await self._spawn(ctx, loop, [call], step_usage, call_format="react")
        if isinstance(parsed, text_tools.TextInvalid) and (written := self._written_in(content)) is not None:
            loop.corrected = False  # the model called a tool, in its own format rather than ours
            return await self._written_calls(ctx, loop, written, content, step_usage)
        loop.messages.append({"role": "assistant", "content": content})
        if isinstance(parsed, text_tools.TextFinal):
            return await self._answered(ctx, loop, parsed.answer, step_usage)
        if loop.corrected:
            return await self._answered(ctx, loop, text_tools.final_answer_text(content), step_usage)
        loop.corrected = True
        loop.iteration += 1
        names = [t.to_spec().name for t in self.tools]
        loop.messages.append({"role": "user", "content": text_tools.corrective_message(parsed.problem, names)})
        return await self._again(ctx, loop, step_usage)

    # ------------------------------------------------------------------ steps
    async def _pre_step(self, ctx: NodeContext) -> str | None:
        """The context after the ``PRE_STEP`` hooks, when this is the start of a task (None for a
        redo, a solo kickoff, or the inner run of an agent's default ``execute_task``)."""
        if self.base_messages or self.feedback:
            return None
        from crewgraph.hooks.steps import pre_step
        from crewgraph.spec._execute_override import on_engine_path

        context = self._context(ctx)
        if on_engine_path():
            return context
        return await pre_step(ctx.state.extras, task_name=interpolate(self.task_name, ctx.inputs),
                              agent_role=interpolate(self.agent_role, ctx.inputs), context=context)

    def _start(self, ctx: NodeContext, given_context: str | None = None) -> _Loop:
        context = ""
        if self.base_messages:
            # A redo (guardrail feedback) reuses the original prompt: its context, memories and
            # plan came from nodes that are not upstream of the guardrail that spawned it.
            messages = [dict(m) for m in self.base_messages]
        else:
            context, ref = self._context_ref(ctx)
            if given_context is not None and given_context != context:  # a pre_step hook changed it
                context, ref = given_context, None
            messages = self._first_messages(ctx, context, ref)
        if self.feedback:
            if self.previous_output is not None:
                messages.append({"role": "assistant", "content": self.previous_output})
            messages.append(
                {
                    "role": "user",
                    "content": f"Your previous answer was not accepted: {self.feedback}\nPlease correct it and answer again.",
                }
            )
        elif ctx.wants(TaskStartedEvent):
            ctx.emit(TaskStartedEvent(task_name=interpolate(self.task_name, ctx.inputs),
                                      agent_role=interpolate(self.agent_role, ctx.inputs), context=context or None))
        if ctx.wants(AgentExecutionStartedEvent):
            ctx.emit(
                AgentExecutionStartedEvent(
                    agent_role=interpolate(self.agent_role, ctx.inputs),
                    task_name=interpolate(self.task_name, ctx.inputs),
                    task_prompt=_text_of(messages[1]["content"]),
                    tools=[getattr(t, "name", str(t)) for t in self.tools],
                )
            )
        seconds = self.timeout.seconds
        who = f"Agent {interpolate(self.agent_role, ctx.inputs)!r} on task {interpolate(self.task_name, ctx.inputs)!r}"
        return _Loop(messages=messages, deadline=time.monotonic() + seconds if seconds else None, who=who)

    def _who(self, loop: _Loop) -> str:
        return loop.who or f"Agent {self.agent_role!r} on task {self.task_name!r}"

    def _check_deadline(self, loop: _Loop) -> None:
        """``max_execution_time`` bounds the whole task (model turns and tool calls), not one turn."""
        if loop.deadline is not None and time.monotonic() > loop.deadline:
            err = NodeTimeoutError(
                f"{self._who(loop)}: exceeded its max_execution_time "
                f"of {self.timeout.seconds:g}s",
                node_id=self.id,
                kind=self.kind,
            )
            err.retryable = False  # another attempt would start past the deadline too
            raise err

    async def _again(self, ctx: NodeContext, loop: _Loop, usage: UsageMetrics) -> NodeResult:
        loop.forced_final = False
        result = await self.run(ctx.evolve(resume=loop, spawned={}))
        result.usage = usage.add(result.usage)
        return result

    async def _callbacks(self, reply: Any, loop: _Loop) -> None:
        """Step callbacks run off the scheduler's thread; one that raises fails the run
        with a CallbackError naming it (not retried: that would repeat the model call)."""
        if not self.step_callbacks:
            return
        from crewgraph._internal.callbacks import call_user_callback

        where = self._who(loop)
        for cb in self.step_callbacks:
            await call_user_callback(cb, reply, kind="step_callback", where=where)

    def _finish(self, ctx: NodeContext, loop: _Loop, answer: str, usage: UsageMetrics) -> NodeResult:
        grounded, warning = grounding(loop.tool_outcomes)
        output = TaskOutput(
            description=with_conversation(interpolate(self.description, ctx.inputs), ctx.inputs),
            name=interpolate(self.task_name, ctx.inputs),
            expected_output=interpolate(self.expected_output, ctx.inputs),
            raw=answer,
            agent=interpolate(self.agent_role, ctx.inputs),
            token_usage=loop.usage,
            tool_failures=list(loop.tool_failures),
            messages=retained_messages(loop.messages),
            grounded=grounded,
            warnings=[warning] if warning else [],
        )
        if ctx.wants(AgentExecutionCompletedEvent):
            ctx.emit(
                AgentExecutionCompletedEvent(
                    agent_role=interpolate(self.agent_role, ctx.inputs), task_name=interpolate(self.task_name, ctx.inputs),
                    output=answer, iterations=loop.iteration,
                )
            )
        return NodeResult(
            output=output,
            usage=usage,
            info={"iterations": loop.iteration, "tool_failures": len(loop.tool_failures),
                  **({"warning": warning} if warning else {}),
                  **({"grounded": grounded} if grounded is not None else {}),
                  **({"context_compressions": loop.compressions} if loop.compressions else {}),
                  **({"continuations": loop.continuations} if loop.continuations else {}),
                  **({"duplicate_calls": loop.duplicate_calls} if loop.duplicate_calls else {}),
                  **({"repeated_calls": loop.repeated_calls} if loop.repeated_calls else {}),
                  **({"notes": list(loop.notes)} if loop.notes else {}),
                  **({"text_tool_calls": dict(loop.call_formats)} if loop.call_formats else {}),
                  **({"training": dict(loop.training)} if loop.training else {})},
        )

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(task=self.task_name, agent=self.agent_role, max_iter=self.max_iter,
                 tools=[getattr(t, "name", str(t)) for t in self.tools])
        return d


def _text_of(content: Any) -> str:
    """A message's text (the text parts of a multimodal message)."""
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return str(content or "")
