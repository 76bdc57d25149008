"""The WSGI entry point for a production server: ``gunicorn pbem.wsgi:app``.

Settings come from the environment (deploy/pbem.env.example); production refuses a default secret.
"""

from pbem import create_app

app = create_app()
