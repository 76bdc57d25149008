"""Installed from a wheel, pbem works as it does in the tree (issue 30): the wheel built from this
checkout, installed into a fresh venv outside the tree, run from a folder that is not the
repository, loads its native playout cores, migrates its database, passes ``pbem doctor``,
serves pages under gunicorn, and mails a Dutch player a Dutch invitation.

What it takes (about 20 s): building the wheel (its catalogs compiled by the build: the copy it
builds from has no ``*.mo``), a venv, ``pip install`` of the wheel and its dependencies (pip's
index and cache as configured on this machine), then each command as a process of that venv with
nothing of the checkout in its environment.
"""

from __future__ import annotations

import email
import email.policy
import os
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support import MAIL_FROM, SECRET, SmtpServer, free_port

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV")


def run(command: list[str | Path], *, env: dict[str, str], cwd: Path,
        timeout: float = 300) -> str:
    """Run ``command``; its output, or a failure that shows what it said."""
    done = subprocess.run([str(part) for part in command], env=env, cwd=cwd, timeout=timeout,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, (
        f"{' '.join(map(str, command))} exited {done.returncode}\n"
        f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}")
    return done.stdout


def checkout_copy(target: Path) -> Path:
    """The checkout as git sees it, tracked and new files alike, without what git ignores (the
    compiled catalogs, build/, .venv): the wheel must be built from the sources alone."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is gone
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    assert not list(target.rglob("*.mo"))
    return target


def build_and_install(tmp_path: Path) -> tuple[Path, dict[str, float]]:
    """The wheel of this checkout installed into a new venv: (its bin folder, seconds taken).

    The venv gets its dependencies, as pyproject.toml declares them, while the wheel is built
    (the build is mostly the C compiler's, the install mostly pip's: side by side they take the
    longer of the two); installing the wheel then checks its own metadata against them. The venv
    has no pip of its own (``pip --python`` installs into it) and no byte code compiled ahead:
    Python compiles what it imports, as it would for an operator who skips it."""
    pip_env = {k: v for k, v in os.environ.items() if k not in OUTSIDE and
               not k.startswith("PBEM_")}
    seconds: dict[str, float] = {}
    start = time.monotonic()
    source = checkout_copy(tmp_path / "source")
    build = subprocess.Popen(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
         str(tmp_path / "dist"), str(source)],
        env=pip_env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        venv = tmp_path / "venv"
        run([sys.executable, "-m", "venv", "--without-pip", venv], env=pip_env, cwd=tmp_path)
        install = [sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install",
                   "--quiet", "--no-compile"]
        with open(ROOT / "pyproject.toml", "rb") as file:
            declared = tomllib.load(file)["project"]["dependencies"]
        run([*install, *declared], env=pip_env, cwd=tmp_path)
        built, _ = build.communicate(timeout=300)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert build.returncode == 0, f"pip wheel exited {build.returncode}\n{built.decode()}"
    (wheel,) = (tmp_path / "dist").glob("pbem-*.whl")
    run([*install, wheel], env=pip_env, cwd=tmp_path)
    seconds["build and install"] = time.monotonic() - start
    return venv / "bin", seconds


@contextmanager
def gunicorn(scripts: Path, env: dict[str, str], work: Path) -> Iterator[str]:
    """``gunicorn pbem.wsgi:app`` of the installed pbem, answering at the URL it yields. A free
    port can be taken between our probe and gunicorn's bind: then it exits, and we try another."""
    for _attempt in range(3):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log = work / "gunicorn.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [str(scripts / "gunicorn"), "--workers", "1", "--bind", f"127.0.0.1:{port}",
                 "pbem.wsgi:app"],
                env={**env, "PBEM_BASE_URL": url}, cwd=work, stdout=out, stderr=out)
        try:
            deadline = time.monotonic() + 60
            while process.poll() is None and time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(f"{url}/rules", timeout=2):
                        pass
                except OSError:
                    time.sleep(0.2)  # the installed gunicorn is starting
                    continue
                yield url
                return
            assert process.poll() is not None, "gunicorn did not answer in 60 s"
        finally:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=30)
    raise AssertionError(f"gunicorn exited: {log.read_text(errors='replace')}")


def page(url: str, language: str = "en") -> str:
    request = urllib.request.Request(url, headers={"Accept-Language": language})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        return str(response.read().decode("utf-8"))


@pytest.mark.early
def test_the_wheel_installed_in_a_fresh_venv_works_from_any_folder(
        tmp_path: Path, smtp_server: SmtpServer) -> None:
    scripts, seconds = build_and_install(tmp_path)
    work = tmp_path / "work"  # the operator's folder: no checkout, no .env
    work.mkdir()
    env = {"PATH": f"{scripts}{os.pathsep}{os.defpath}", "HOME": str(work), "LANG": "C.UTF-8",
           "PBEM_ENV": "development", "PBEM_SECRET_KEY": SECRET,
           "PBEM_DATABASE_URL": f"sqlite:///{work / 'pbem.db'}",
           "PBEM_BASE_URL": "http://127.0.0.1:5000", "PBEM_SMTP_HOST": smtp_server.host,
           "PBEM_SMTP_PORT": str(smtp_server.port), "PBEM_SMTP_TLS": "none",
           "PBEM_MAIL_FROM": MAIL_FROM}

    # The installed package, not the checkout, with its own templates.
    where = run([scripts / "python", "-c", "import pbem, pbem.templating as t\n"
                 "print(pbem.__file__); print(t.TEMPLATES)"], env=env, cwd=work).split()
    assert all(Path(path).is_relative_to(scripts.parent) for path in where), where

    # The native playout cores: compiled by the wheel's build (a C compiler is here: make test
    # installs one), shipped in it, and loaded by the installed engine.
    if shutil.which("cc") or shutil.which("gcc"):
        packages = sorted(path.parent.relative_to(ROOT).as_posix().replace("/", ".")
                          for path in ROOT.glob("engine/games/*/_native.pyx"))
        said = run([scripts / "python", "-c", "import sys\nfrom engine import native\n"
                    "print(*(native.status(p) for p in sys.argv[1:]))", *packages],
                   env=env, cwd=work).split()
        assert said == ["built"] * len(packages), dict(zip(packages, said, strict=False))

    upgrade = run([scripts / "pbem", "db", "upgrade"], env=env, cwd=work)
    assert "database is up to date" in upgrade
    assert (work / "pbem.db").is_file()
    report = run([scripts / "pbem", "doctor"], env=env, cwd=work)
    assert "catalogs" in report and "templates" in report

    start = time.monotonic()
    with gunicorn(scripts, env, work) as url:
        assert "Mosey" in page(f"{url}/")
        assert "Rules of the games" in page(f"{url}/rules")
        assert "Spelregels van de spellen" in page(f"{url}/rules", "nl")
        rules = page(f"{url}/rules/mosey")
        assert "How to play Mosey" in rules and "<svg" in rules
        assert "The rules as implemented" in rules  # the fine print: docs/rules/mosey.md
        assert "addEventListener" in page(f"{url}/static/board.js")  # static/, shipped
    seconds["pages"] = time.monotonic() - start

    run([scripts / "pbem", "create-game", "mosey", "--player", "Ann <ann@example.test>",
         "--player", "Bo <bo@example.test>", "--language", "nl"], env=env, cwd=work)
    assert run([scripts / "pbem", "deliver"], env=env, cwd=work).startswith("sent 2,")
    assert sorted(r for m in smtp_server.messages for r in m.recipients) == [
        "ann@example.test", "bo@example.test"]
    for received in smtp_server.messages:
        message = email.message_from_bytes(received.raw, policy=email.policy.default)
        body = message.get_body(("plain",))
        assert body is not None
        text = body.get_content()
        assert "Je bent uitgenodigd om Mosey te spelen" in text, text
        assert "Accepteren of afslaan kan hier" in text
        assert "invited" not in text and "Accept or decline" not in text
    print(f"wheel: built and installed in {seconds['build and install']:.1f} s,"
          f" pages {seconds['pages']:.1f} s")
