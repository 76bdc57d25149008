"""The organisers' dashboard: accounts, games, players, mail and audit logs.

:func:`pbem.admin.app.init_app` wires it into the app made by :func:`pbem.create_app`. This
package's ``__init__`` stays empty: the ``pbem`` command loads the organiser accounts
(:mod:`pbem.admin.cli`) without the dashboard's pages.
"""
