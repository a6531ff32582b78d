"""The doors: register, log in, log out (here or everywhere), the language — the HTTP edge of
:mod:`app.accounts`, a package of its own so that the web toolkit, which reads the login
session (``app.web.deps``), names no package with an HTTP edge (no import cycle)."""
