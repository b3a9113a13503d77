"""LangChain: :class:`CitationCheck`, a ``Runnable`` that checks a model's answer against
the project's committed captures, for LCEL chains (``prompt | model | CitationCheck(project)``).

Needs the ``langchain`` extra (langchain-core). A thin layer over
:meth:`citelint.Project.check_markdown` and :meth:`citelint.Project.enforce_links`:
read-only, offline, and it never writes a capture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

try:
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable, RunnableConfig
except ImportError as exc:  # the extra is not installed: say which one
    raise ImportError(f"citelint.integrations.langchain needs langchain-core ({exc}): "
                      "pip install 'citelint-provenance[langchain]'") from exc

if TYPE_CHECKING:
    from citelint import Project, Result

#: What :class:`CitationCheck` does with an answer (see its docstring).
Mode = Literal["raise", "enforce"]


class CitationCheck(Runnable[Any, Any]):
    """Check an answer (a ``str``, or a message such as the ``AIMessage`` a chat model
    returns) as a Markdown report of ``project``, and pass it on.

    - ``mode="raise"`` (the default): the answer unchanged when no finding is at error
      severity (warning too, with ``strict``); else :class:`citelint.FindingsError`, whose
      ``result`` is the whole :class:`citelint.Result` and whose message lists the findings.
    - ``mode="enforce"``: every link the captures do not ground degraded to its visible text
      (as ``citelint check --fix`` does), then checked as above, so what is left to fail is
      what no rewrite can mend (a quotation not in its capture: CL204, CL205). Returns the
      same kind of value it was given, with the enforced text: a ``str``, or a copy of the
      message with that text as its content.

    ``name`` is how findings name the answer. A message whose content is a list of blocks is
    checked on its text blocks joined (``message.text``); ``enforce`` needs string content.
    After each call, :attr:`last_result` holds the result of that check (a pipeline that
    logs or publishes it reads it there; with several threads, read the exception's or
    call :meth:`check` instead).

    Raises (from ``invoke`` and ``ainvoke``):
        FindingsError: the answer fails the check.
        UsageError: an input that is neither a ``str`` nor a message, or ``enforce`` on a
            message whose content is not a string.
    """

    def __init__(self, project: Project, *, mode: Mode = "raise", name: str = "answer.md",
                 strict: bool = False) -> None:
        from citelint import UsageError

        if mode not in ("raise", "enforce"):
            raise UsageError(f"CitationCheck mode is 'raise' or 'enforce', not {mode!r}")
        self.project, self.mode, self.answer_name, self.strict = project, mode, name, strict
        self.last_result: Result | None = None

    def check(self, answer: str | BaseMessage) -> tuple[str | BaseMessage, Result]:
        """The answer as passed on (enforced, in ``enforce`` mode) and its check result,
        without raising on findings.

        Raises:
            UsageError: as the class docstring says.
        """
        from citelint import UsageError

        if isinstance(answer, BaseMessage):
            text = answer.text if not isinstance(answer.content, str) else answer.content
        elif isinstance(answer, str):
            text = answer
        else:
            raise UsageError(f"CitationCheck takes a str or a message, got {type(answer).__name__}")
        out: str | BaseMessage = answer
        if self.mode == "enforce":
            if isinstance(answer, BaseMessage) and not isinstance(answer.content, str):
                raise UsageError("CitationCheck(mode='enforce') rewrites text: the message's content is a list "
                                 "of blocks; use mode='raise', or pass the text")
            text = self.project.enforce_links(text).text
            out = answer.model_copy(update={"content": text}) if isinstance(answer, BaseMessage) else text
        return out, self.project.check_markdown(text, name=self.answer_name)

    def _run(self, answer: str | BaseMessage) -> str | BaseMessage:
        out, result = self.check(answer)
        self.last_result = result
        result.raise_for_errors(strict=self.strict)
        return out

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Check ``input`` (see the class docstring), reported to LangChain's callbacks as one run."""
        return self._call_with_config(self._run, input, config)
