"""The code an organiser owes half-way through a login (pbem.admin.second_step): who this session
owes it for, and the page that asks for it. Below both the second step and the limiter
(pbem.admin.limits), which keys its counts on the account and shows this page when they run out."""

from __future__ import annotations

from flask import render_template, session

from pbem.admin.account_forms import CodeForm

PENDING = "_pbem_second_step"


def pending_user_id() -> int | None:
    """Who this session is half-way in for (unchecked: for the limiter's keys)."""
    pending = session.get(PENDING)
    user = pending.get("user") if isinstance(pending, dict) else None
    return user if type(user) is int else None


def code_page(form: CodeForm, error: str, status: int) -> tuple[str, int]:
    return render_template("admin/login_code.html", form=form, error=error), status
