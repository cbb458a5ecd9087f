"""The conventions in force, above every page in one line: the collection, whether the numbers are
trec_eval's, the qrels in force and how thinly the runs' tops are judged; every convention, one a
line, behind a click on it. Four lines of conventions above every page pushed a projector's first
screen (the query and its judging grid) down."""

from __future__ import annotations

import streamlit as st

from rankviz.app.frame.context import Context
from rankviz.app.widgets.text import md


def summary(ctx: Context, thin: dict[str, float]) -> str:
    """The line's words (markdown, user text escaped)."""
    parts = [f"**{md(ctx.collection_name)}**"]
    if not ctx.ranked:
        parts.append("per-query scores as their files give them")
    else:
        unlike = ctx.settings.unlike_trec_eval()
        parts.append(
            "trec_eval's conventions"
            if not unlike
            else f"{len(unlike)} convention{'s' if len(unlike) > 1 else ''} not trec_eval's"
        )
    if ctx.meeting is not None and ctx.meeting.mode != "file":
        parts.append(f"qrels in force: {md(ctx.meeting.mode)}")
    if thin:
        parts.append(f"top {ctx.k} thinly judged in {len(thin)} run{'s' if len(thin) > 1 else ''}")
    return " · ".join(parts)


def show(ctx: Context, thin: dict[str, float]) -> None:
    """The line at the top of the page (beside the choice of the qrels in force when there is
    one); opened, every convention in force and each thinly judged run's share."""
    judged = (
        [f"top {ctx.k} judged: " + ", ".join(f"{name} {share:.0%}" for name, share in thin.items())]
        if thin
        else []
    )
    with (ctx.top or st).expander(summary(ctx, thin)):
        st.caption("\n".join(f"- {md(line)}" for line in [*ctx.conventions(), *judged]))
